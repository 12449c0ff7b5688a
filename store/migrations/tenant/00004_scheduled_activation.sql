-- Tenant schema: the once-a-minute scheduled (de)activation job
-- (docs/decisions.md, "Scheduled deactivation and reactivation") finds the users with a due date through these
-- partial indexes instead of scanning every user.

-- +goose Up
CREATE INDEX users_deactivate_scheduled ON users (deactivate_scheduled_date)
    WHERE deactivate_scheduled_date IS NOT NULL;
CREATE INDEX users_reactivate_scheduled ON users (reactivate_scheduled_date)
    WHERE reactivate_scheduled_date IS NOT NULL;

-- +goose Down
DROP INDEX users_reactivate_scheduled;
DROP INDEX users_deactivate_scheduled;
