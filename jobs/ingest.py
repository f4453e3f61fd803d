"""`reasonlake ingest` as a job: `spark-submit jobs/ingest.py [--home DIR] STREAM PATH...`.
The wheel's `reasonlake-job-ingest` (a Databricks python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import ingest

if __name__ == "__main__":
    ingest()
