-- Delta checkpoints a table inside the commit of every 10th version, rebuilding its state with
-- Spark jobs (1.0-1.4 s on 2 cores) that the ingest, close or runner batch making that commit
-- pays. On a local home the store checkpoints these tables itself after its commits, by
-- delta-rs, every 10 commits (engine/store/log_upkeep.py); Delta's own checkpoint comes every
-- 1000th as a bound. Statements naming ${local_checkpoint_interval} run on a local home only:
-- elsewhere every write goes through Spark, and Delta's interval stays.
ALTER TABLE delta.`${home}/events` SET TBLPROPERTIES ('delta.checkpointInterval' = '${local_checkpoint_interval}');
ALTER TABLE delta.`${home}/quarantine` SET TBLPROPERTIES ('delta.checkpointInterval' = '${local_checkpoint_interval}');
ALTER TABLE delta.`${home}/ingests` SET TBLPROPERTIES ('delta.checkpointInterval' = '${local_checkpoint_interval}');
ALTER TABLE delta.`${home}/terms` SET TBLPROPERTIES ('delta.checkpointInterval' = '${local_checkpoint_interval}');
ALTER TABLE delta.`${home}/view_state` SET TBLPROPERTIES ('delta.checkpointInterval' = '${local_checkpoint_interval}');
ALTER TABLE delta.`${home}/late` SET TBLPROPERTIES ('delta.checkpointInterval' = '${local_checkpoint_interval}');
ALTER TABLE delta.`${home}/leases` SET TBLPROPERTIES ('delta.checkpointInterval' = '${local_checkpoint_interval}');
