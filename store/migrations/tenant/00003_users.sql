-- Tenant schema: user accounts (docs/api.md, "Users"; docs/decisions.md, "Users")
-- and what they carry: up to five roles by position, groups, goals and custom
-- field values. Runs with search_path set to the tenant's schema only.

-- +goose Up
CREATE TABLE users (
    id                              bigserial   PRIMARY KEY,
    user_name                       text        NOT NULL CHECK (user_name <> ''),  -- lower-cased by the store
    first_name                      text        NOT NULL,
    last_name                       text        NOT NULL,
    email                           text        NOT NULL,
    manager_email                   text,
    manager_2_email                 text,
    manager_3_email                 text,
    manager_4_email                 text,
    manager_5_email                 text,
    mentor_email                    text,
    lms_learner_id                  text,
    lms_reference                   text,
    -- Not settable through the API: administrators are made elsewhere.
    org_admin                       boolean     NOT NULL DEFAULT false,
    admin_type                      smallint    CHECK (admin_type BETWEEN 0 AND 8),
    creator                         boolean     NOT NULL DEFAULT false,
    current_sign_in_at              timestamptz,
    deactivate_scheduled_date       timestamptz,
    reactivate_scheduled_date       timestamptz,
    language                        text        NOT NULL DEFAULT 'en',
    created_by                      text        NOT NULL DEFAULT 'api',
    -- No default: the store writes the tenant's time zone when none is given.
    timezone                        text        NOT NULL,
    user_notifications_enabled      boolean     NOT NULL DEFAULT true,
    force_pwd_reset_next_login      boolean     NOT NULL DEFAULT false,
    manager_email_report_1st_month  boolean     NOT NULL DEFAULT false,
    manager_email_report_15th_month boolean     NOT NULL DEFAULT false,
    team_leader_report_frequency    text,
    learner_report_frequency        text,
    assessor_report_frequency       text,
    -- NULL is the `Default` landing page.
    default_landing_page            text,
    login                           text        NOT NULL DEFAULT 'internal' CHECK (login IN ('internal', 'external')),
    type                            text        NOT NULL DEFAULT 'Staff',
    active                          boolean     NOT NULL DEFAULT true,
    platform_champion               boolean     NOT NULL DEFAULT false,
    -- bcrypt hash; never returned.
    password_hash                   text,
    created_at                      timestamptz NOT NULL DEFAULT now(),
    updated_at                      timestamptz NOT NULL DEFAULT now(),
    CHECK (login = 'internal' OR password_hash IS NULL)
);
CREATE UNIQUE INDEX users_user_name ON users (user_name);
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE UNIQUE INDEX users_lms ON users (lms_learner_id, lms_reference)
    WHERE lms_learner_id IS NOT NULL AND lms_reference IS NOT NULL;
-- GET /users: newest first, updated_after/updated_before.
CREATE INDEX users_created ON users (created_at DESC, id DESC);
CREATE INDEX users_updated ON users (updated_at);
-- team_leader: does any user name this email as one of their managers?
CREATE INDEX users_manager_email ON users (lower(manager_email)) WHERE manager_email IS NOT NULL;
CREATE INDEX users_manager_2_email ON users (lower(manager_2_email)) WHERE manager_2_email IS NOT NULL;
CREATE INDEX users_manager_3_email ON users (lower(manager_3_email)) WHERE manager_3_email IS NOT NULL;
CREATE INDEX users_manager_4_email ON users (lower(manager_4_email)) WHERE manager_4_email IS NOT NULL;
CREATE INDEX users_manager_5_email ON users (lower(manager_5_email)) WHERE manager_5_email IS NOT NULL;

-- Deleting a role, group, goal or custom field removes it from every user.
CREATE TABLE user_roles (
    user_id  bigint   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    position smallint NOT NULL CHECK (position BETWEEN 1 AND 5),
    role_id  bigint   NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, position)
);
CREATE INDEX user_roles_role ON user_roles (role_id);

CREATE TABLE user_groups (
    user_id  bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    group_id bigint NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, group_id)
);
CREATE INDEX user_groups_group ON user_groups (group_id);

CREATE TABLE user_goals (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    goal_id bigint NOT NULL REFERENCES goals (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, goal_id)
);
CREATE INDEX user_goals_goal ON user_goals (goal_id);

-- value is the normalised text: a number in shortest form, a date as
-- yyyy-mm-dd, a list's option names sorted and joined with ';'.
CREATE TABLE user_custom_values (
    user_id  bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    field_id bigint NOT NULL REFERENCES custom_fields (id) ON DELETE CASCADE,
    value    text   NOT NULL,
    PRIMARY KEY (user_id, field_id)
);
CREATE INDEX user_custom_values_field ON user_custom_values (field_id);

-- +goose Down
DROP TABLE user_custom_values;
DROP TABLE user_goals;
DROP TABLE user_groups;
DROP TABLE user_roles;
DROP TABLE users;
