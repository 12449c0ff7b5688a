-- Tenant schema: topic and pathway enrolments (docs/api.md, "Enrolment codes
-- and enrolments"; docs/decisions.md, "Enrolments"). An enrolment that
-- is unenrolled keeps its row with removed_at set (history) and is no longer
-- listed; at most one current enrolment per user and topic or pathway.

-- +goose Up
CREATE TABLE topic_enrolments (
    id                      bigserial   PRIMARY KEY,
    user_id                 bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    topic_id                bigint      NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    status                  text        NOT NULL DEFAULT 'Unexplored'
                                        CHECK (status IN ('Unexplored', 'Exploring', 'Applying', 'Conquered')),
    relationship            text        NOT NULL DEFAULT 'direct' CHECK (relationship IN ('direct', 'pathway')),
    due_date                timestamptz,
    completed_topic_at      timestamptz,
    certified_date          timestamptz,
    recertification_allowed boolean     NOT NULL DEFAULT false,
    enrolled_by             text,
    -- Minutes reported through the progress extension, added to the topic's own once conquered.
    progress_minutes        integer     NOT NULL DEFAULT 0 CHECK (progress_minutes >= 0),
    version                 text,
    removed_at              timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'Conquered') = (completed_topic_at IS NOT NULL))
);
CREATE UNIQUE INDEX topic_enrolments_current ON topic_enrolments (user_id, topic_id) WHERE removed_at IS NULL;
CREATE INDEX topic_enrolments_listed ON topic_enrolments (id) WHERE removed_at IS NULL;
CREATE INDEX topic_enrolments_topic ON topic_enrolments (topic_id, id) WHERE removed_at IS NULL;
CREATE INDEX topic_enrolments_user ON topic_enrolments (user_id, id) WHERE removed_at IS NULL;
CREATE INDEX topic_enrolments_updated ON topic_enrolments (updated_at) WHERE removed_at IS NULL;

-- Skills given with the enrolment code (enrolment_code_N_skill_attained);
-- a conquered enrolment's skills_attained adds the topic's own skills.
CREATE TABLE topic_enrolment_skills (
    enrolment_id bigint NOT NULL REFERENCES topic_enrolments (id) ON DELETE CASCADE,
    skill_id     bigint NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    PRIMARY KEY (enrolment_id, skill_id)
);
CREATE INDEX topic_enrolment_skills_skill ON topic_enrolment_skills (skill_id);

CREATE TABLE pathway_enrolments (
    id                      bigserial   PRIMARY KEY,
    user_id                 bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    pathway_id              bigint      NOT NULL REFERENCES pathways (id) ON DELETE CASCADE,
    status                  text        NOT NULL DEFAULT 'Unexplored'
                                        CHECK (status IN ('Pre-enrolled', 'Unexplored', 'Exploring', 'Applying',
                                                          'Conquered', 'recertify')),
    due_date                timestamptz,
    conquered_at            timestamptz,
    certified_date          timestamptz,
    recertification_allowed boolean     NOT NULL DEFAULT false,
    enrolled_by             text        NOT NULL DEFAULT 'api',
    removed_at              timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX pathway_enrolments_current ON pathway_enrolments (user_id, pathway_id) WHERE removed_at IS NULL;
CREATE INDEX pathway_enrolments_listed ON pathway_enrolments (id) WHERE removed_at IS NULL;
CREATE INDEX pathway_enrolments_pathway ON pathway_enrolments (pathway_id, id) WHERE removed_at IS NULL;
CREATE INDEX pathway_enrolments_user ON pathway_enrolments (user_id, id) WHERE removed_at IS NULL;
CREATE INDEX pathway_enrolments_updated ON pathway_enrolments (updated_at) WHERE removed_at IS NULL;
-- The periodic recertify sweep: conquered enrolments whose certification ends.
CREATE INDEX pathway_enrolments_certified ON pathway_enrolments (certified_date)
    WHERE removed_at IS NULL AND status = 'Conquered' AND recertification_allowed AND certified_date IS NOT NULL;

CREATE TABLE pathway_enrolment_skills (
    enrolment_id bigint NOT NULL REFERENCES pathway_enrolments (id) ON DELETE CASCADE,
    skill_id     bigint NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    PRIMARY KEY (enrolment_id, skill_id)
);
CREATE INDEX pathway_enrolment_skills_skill ON pathway_enrolment_skills (skill_id);

-- +goose Down
DROP TABLE pathway_enrolment_skills;
DROP TABLE pathway_enrolments;
DROP TABLE topic_enrolment_skills;
DROP TABLE topic_enrolments;
