"""`reasonlake init` as a job: `spark-submit jobs/init.py [--home DIR] [--catalog C --schema S]`
(run once, and after an upgrade). The wheel's `reasonlake-job-init` (a Databricks
python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import init

if __name__ == "__main__":
    init()
