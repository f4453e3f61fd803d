"""`reasonlake validate` as a job: `spark-submit jobs/validate.py [--home DIR] VIEW [--close TIME]
[--docs DIR]` (fails when an expectation does). The wheel's `reasonlake-job-validate` (a Databricks
python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import validate

if __name__ == "__main__":
    validate()
