-- newest-wins repair: the number of explicit items a close removed (its repairs).
ALTER TABLE delta.`${home}/view_state` ADD COLUMNS (repairs BIGINT);
