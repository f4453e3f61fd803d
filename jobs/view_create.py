"""`reasonlake view create` as a job: `spark-submit jobs/view_create.py [--home DIR] FILE.yaml... [--rebuild]`.
The wheel's `reasonlake-job-view-create` (a Databricks python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import view_create

if __name__ == "__main__":
    view_create()
