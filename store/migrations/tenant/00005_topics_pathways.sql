-- Tenant schema: topics and pathways (docs/decisions.md, "Catalog, topics and pathways") and the
-- enrolment codes that name them (section 7). Runs with search_path set to
-- the tenant's schema only.

-- +goose Up
CREATE TABLE topics (
    id                      bigserial   PRIMARY KEY,
    title                   text        NOT NULL CHECK (title <> ''),
    -- 1 topic, 2 article.
    knowledge_type          smallint    NOT NULL DEFAULT 1 CHECK (knowledge_type IN (1, 2)),
    external_id             text        NOT NULL DEFAULT '',
    show_certificate        boolean     NOT NULL DEFAULT false,
    recertification_allowed boolean     NOT NULL DEFAULT false,
    -- Days a certification lasts after the conquered date; NULL: no expiry.
    certify_days            integer     CHECK (certify_days > 0),
    minutes                 integer     NOT NULL DEFAULT 0 CHECK (minutes >= 0),
    cpd_minutes             integer     NOT NULL DEFAULT 0 CHECK (cpd_minutes >= 0),
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pathways (
    id                      bigserial   PRIMARY KEY,
    title                   text        NOT NULL CHECK (title <> ''),
    external_id             text        NOT NULL DEFAULT '',
    show_certificate        boolean     NOT NULL DEFAULT false,
    recertification_allowed boolean     NOT NULL DEFAULT false,
    certify_days            integer     CHECK (certify_days > 0),
    -- Topics must be taken in position order.
    ordered                 boolean     NOT NULL DEFAULT false,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now()
);

-- One code per topic or pathway, unique across both, ignoring case.
CREATE TABLE enrolment_codes (
    code       text   NOT NULL CHECK (code <> '' AND code !~ '\s'),
    topic_id   bigint UNIQUE REFERENCES topics (id) ON DELETE CASCADE,
    pathway_id bigint UNIQUE REFERENCES pathways (id) ON DELETE CASCADE,
    CHECK ((topic_id IS NULL) <> (pathway_id IS NULL))
);
CREATE UNIQUE INDEX enrolment_codes_code ON enrolment_codes (lower(code));

-- Deleting a skill or category removes it from topics and pathways.
CREATE TABLE topic_skills (
    topic_id bigint NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    skill_id bigint NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    PRIMARY KEY (topic_id, skill_id)
);
CREATE INDEX topic_skills_skill ON topic_skills (skill_id);

CREATE TABLE topic_categories (
    topic_id    bigint        NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    category_id bigint        NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    minutes     integer       NOT NULL DEFAULT 0 CHECK (minutes >= 0),
    points      numeric(12,2) NOT NULL DEFAULT 0,
    PRIMARY KEY (topic_id, category_id)
);
CREATE INDEX topic_categories_category ON topic_categories (category_id);

CREATE TABLE pathway_skills (
    pathway_id bigint NOT NULL REFERENCES pathways (id) ON DELETE CASCADE,
    skill_id   bigint NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    PRIMARY KEY (pathway_id, skill_id)
);
CREATE INDEX pathway_skills_skill ON pathway_skills (skill_id);

-- A pathway's topics in order (position 1, 2, ...).
CREATE TABLE pathway_topics (
    pathway_id bigint   NOT NULL REFERENCES pathways (id) ON DELETE CASCADE,
    topic_id   bigint   NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    position   integer  NOT NULL CHECK (position > 0),
    mandatory  boolean  NOT NULL DEFAULT true,
    PRIMARY KEY (pathway_id, topic_id),
    UNIQUE (pathway_id, position)
);
CREATE INDEX pathway_topics_topic ON pathway_topics (topic_id);

-- +goose Down
DROP TABLE pathway_topics;
DROP TABLE pathway_skills;
DROP TABLE topic_categories;
DROP TABLE topic_skills;
DROP TABLE enrolment_codes;
DROP TABLE pathways;
DROP TABLE topics;
