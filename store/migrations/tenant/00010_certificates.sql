-- Tenant schema: certificate jobs (docs/api.md, "Certificates";
-- docs/decisions.md, "Certificates").
-- A job reads as 404 from expires_at on (24 hours after the request) and
-- is deleted, with its PDF, by the periodic certificate_purge job.
--
-- The enrolment is named by kind and id without a foreign key: a job and
-- its file outlive nothing longer than 24 hours, and the purge, not a
-- cascade, is what removes them, so no PDF is left without its row.

-- +goose Up
CREATE TABLE certificate_jobs (
    id             bigserial   PRIMARY KEY,
    -- job_id is the public, unguessable id; certificate_id is printed on the PDF.
    job_id         text        NOT NULL UNIQUE CHECK (job_id ~ '^[0-9a-f]{32}$'),
    certificate_id text        NOT NULL UNIQUE,
    enrolment_kind text        NOT NULL CHECK (enrolment_kind IN ('topic', 'pathway')),
    enrolment_id   bigint      NOT NULL,
    status         text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'complete', 'failed')),
    error          text        CHECK ((status = 'failed') = (coalesce(error, '') <> '')),
    -- Where the PDF is (or will be) stored; fixed at the request so that
    -- the purge can delete a file whatever became of its job.
    blob_key       text        NOT NULL,
    requested_at   timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    finished_at    timestamptz,
    CHECK ((status = 'pending') = (finished_at IS NULL))
);
-- At most one pending job per enrolment: a second request returns it.
CREATE UNIQUE INDEX certificate_jobs_pending ON certificate_jobs (enrolment_kind, enrolment_id)
    WHERE status = 'pending';
-- The purge's sweep.
CREATE INDEX certificate_jobs_expires ON certificate_jobs (expires_at);

-- +goose Down
DROP TABLE certificate_jobs;
