-- Tenant schema: every table has a replica identity, so that a Citus
-- cluster can move the schema to another worker online (logical
-- replication: reads and writes go on while the rows are copied, and
-- writes wait only for the final switch; deploy/README.md, "Beyond one
-- PostgreSQL"). These five have no primary key, and enrolment_codes' one
-- unique index is on an expression, which cannot serve: they replicate
-- whole rows (FULL). All are small (codes, and the rank queues that the
-- list-rank job empties), so the cost to their updates and deletes is nil.
-- On a single PostgreSQL this changes nothing but the catalog.

-- Each ALTER takes its table's lock for a moment: a lock_timeout keeps a
-- migration that meets a long transaction from queueing every request of
-- the tenant behind it (it fails, and `learngate migrate` is run again).

-- +goose Up
SET LOCAL lock_timeout = '5s';
ALTER TABLE enrolment_codes REPLICA IDENTITY FULL;
ALTER TABLE user_rank_dirty REPLICA IDENTITY FULL;
ALTER TABLE topic_enrolment_rank_dirty REPLICA IDENTITY FULL;
ALTER TABLE pathway_enrolment_rank_dirty REPLICA IDENTITY FULL;
ALTER TABLE knowledge_rank_dirty REPLICA IDENTITY FULL;

-- +goose Down
ALTER TABLE enrolment_codes REPLICA IDENTITY DEFAULT;
ALTER TABLE user_rank_dirty REPLICA IDENTITY DEFAULT;
ALTER TABLE topic_enrolment_rank_dirty REPLICA IDENTITY DEFAULT;
ALTER TABLE pathway_enrolment_rank_dirty REPLICA IDENTITY DEFAULT;
ALTER TABLE knowledge_rank_dirty REPLICA IDENTITY DEFAULT;
