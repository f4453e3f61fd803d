"""`reasonlake register` as a job: `spark-submit jobs/register.py [--home DIR] FILE.rspql [--name NAME]`.
The wheel's `reasonlake-job-register` (a Databricks python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import register

if __name__ == "__main__":
    register()
