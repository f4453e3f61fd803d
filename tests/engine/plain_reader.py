"""A plain pyspark session (Delta configured, the home's metastore; no reasonlake): prints the
rows of a SQL query as JSON lines. Run as a script: plain_reader.py HOME QUERY."""
import json
import sys

from delta import configure_spark_with_delta_pip
from pyspark.sql import SparkSession

home, query = sys.argv[1], sys.argv[2]
builder = (SparkSession.builder.master("local[1]").appName("plain reader")
           .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
           .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
           .config("spark.hadoop.javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={home}/_metastore/db")
           .config("spark.sql.warehouse.dir", f"{home}/_metastore/warehouse")
           .config("spark.ui.showConsoleProgress", "false")
           .enableHiveSupport())
spark = configure_spark_with_delta_pip(builder).getOrCreate()
for row in spark.sql(query).collect():
    print("ROW " + json.dumps(row.asDict(), default=str))
spark.stop()
