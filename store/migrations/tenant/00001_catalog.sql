-- Tenant schema: the catalog of names that users, enrolments and external
-- knowledge refer to (docs/decisions.md, "Catalog, topics and pathways"). Runs with search_path set to
-- the tenant's schema only, so every table here is the tenant's own.

-- +goose Up
CREATE TABLE roles (
    id         bigserial   PRIMARY KEY,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX roles_name ON roles (lower(name));

CREATE TABLE groups (
    id         bigserial   PRIMARY KEY,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups_name ON groups (lower(name));

CREATE TABLE goals (
    id         bigserial   PRIMARY KEY,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX goals_name ON goals (lower(name));

CREATE TABLE skills (
    id         bigserial   PRIMARY KEY,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX skills_name ON skills (lower(name));

CREATE TABLE categories (
    id         bigserial   PRIMARY KEY,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX categories_name ON categories (lower(name));

-- +goose Down
DROP TABLE categories;
DROP TABLE skills;
DROP TABLE goals;
DROP TABLE groups;
DROP TABLE roles;
