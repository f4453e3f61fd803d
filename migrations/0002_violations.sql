-- owl2rl: the number of violations a published close holds (its consistency status).
ALTER TABLE delta.`${home}/view_state` ADD COLUMNS (violations BIGINT);
