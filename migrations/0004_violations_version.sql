-- owl2rl: the Delta version of a view's violations table that holds a close's violations,
-- so `violations --close` of a past close reads them as they were (a rebuild rewrites the table).
ALTER TABLE delta.`${home}/view_state` ADD COLUMNS (violations_version BIGINT);
