"""Storage: the home and its Delta tables, the Spark session, leases, the term dictionary and
the commits reasonlake writes (what a job reads and publishes; no reasoning)."""
