"""`reasonlake slide` as a job: `spark-submit jobs/slide.py [--home DIR] VIEW [--until TIME]`.
The wheel's `reasonlake-job-slide` (a Databricks python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import slide

if __name__ == "__main__":
    slide()
