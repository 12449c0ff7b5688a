-- Tenant schema: the rank triggers (user_rank_mark, list_rank_mark) take
-- their queue table's ROW EXCLUSIVE lock on their own node only. On a
-- Citus cluster a LOCK TABLE of a distributed table is otherwise sent to
-- every node of the cluster, so every user or enrolment write of every
-- tenant needed every worker up (one worker down failed the writes of all
-- tenants) and paid a round trip to each. Without propagation the trigger
-- locks the table on the worker that runs it, where the rank job's
-- SHARE ROW EXCLUSIVE lock (taken through the coordinator, which sends it
-- to every node) still meets it: the job and the writers wait for each
-- other as before (migrations 00012 and 00017). On a single PostgreSQL the
-- setting is an unused placeholder and nothing changes.

-- +goose Up
ALTER FUNCTION user_rank_mark() SET citus.enable_ddl_propagation = off;
ALTER FUNCTION list_rank_mark() SET citus.enable_ddl_propagation = off;

-- +goose Down
ALTER FUNCTION user_rank_mark() RESET citus.enable_ddl_propagation;
ALTER FUNCTION list_rank_mark() RESET citus.enable_ddl_propagation;
