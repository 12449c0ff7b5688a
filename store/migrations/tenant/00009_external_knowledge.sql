-- Tenant schema: external knowledge records (docs/api.md and
-- docs/decisions.md, "External knowledge"): training, certificates, qualifications,
-- licences, documents and development plans a user obtained outside the
-- platform, with the skills and categories they carry. Runs with search_path
-- set to the tenant's schema only.

-- +goose Up
CREATE TABLE external_knowledges (
    id                  bigserial   PRIMARY KEY,
    -- A record belongs to one user, for good.
    user_id             bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- 1 Training, 2 Certificate, 3 Qualification, 4 License, 5 Document, 6 Development Plan.
    knowledge_type      smallint    NOT NULL CHECK (knowledge_type BETWEEN 1 AND 6),
    title               text        NOT NULL CHECK (title <> ''),
    -- Documents: the document type; Development Plans: the stage; else free text.
    code                text,
    provider            text        NOT NULL DEFAULT '',
    date_obtained       date        NOT NULL,
    certificate_number  text        NOT NULL DEFAULT '',
    country_obtained    text        NOT NULL DEFAULT '',
    state_obtained      text        NOT NULL DEFAULT '',
    expires             date,
    qualification_level text,
    assessment_score    numeric     NOT NULL DEFAULT 0,
    total_time          integer     NOT NULL DEFAULT 0 CHECK (total_time >= 0),
    notes               text        NOT NULL DEFAULT '',
    klass               text        NOT NULL DEFAULT '',
    development_focus   text        CHECK (development_focus IN ('At Level', 'Transition', 'Progression')),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CHECK (knowledge_type = 6 OR development_focus IS NULL),
    CHECK (knowledge_type <> 6 OR code IS NULL OR code IN ('Initial', 'Mid Review', 'End Review'))
);
-- GET /external_knowledges: oldest first by id (the primary key), user_name
-- and updated_after/updated_before filters.
CREATE INDEX external_knowledges_user ON external_knowledges (user_id);
CREATE INDEX external_knowledges_updated ON external_knowledges (updated_at);

-- Deleting a skill or category removes it from every record.
CREATE TABLE external_knowledge_skills (
    knowledge_id bigint NOT NULL REFERENCES external_knowledges (id) ON DELETE CASCADE,
    skill_id     bigint NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    PRIMARY KEY (knowledge_id, skill_id)
);
CREATE INDEX external_knowledge_skills_skill ON external_knowledge_skills (skill_id);

-- Up to three categories, in the order sent (category_1 .. category_3).
CREATE TABLE external_knowledge_categories (
    knowledge_id bigint        NOT NULL REFERENCES external_knowledges (id) ON DELETE CASCADE,
    category_id  bigint        NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    position     smallint      NOT NULL CHECK (position BETWEEN 1 AND 3),
    minutes      integer       NOT NULL DEFAULT 0 CHECK (minutes >= 0),
    points       numeric(12,2) NOT NULL DEFAULT 0 CHECK (points >= 0),
    PRIMARY KEY (knowledge_id, category_id),
    UNIQUE (knowledge_id, position)
);
CREATE INDEX external_knowledge_categories_category ON external_knowledge_categories (category_id);

-- +goose Down
DROP TABLE external_knowledge_categories;
DROP TABLE external_knowledge_skills;
DROP TABLE external_knowledges;
