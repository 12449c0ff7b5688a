-- learngate tenant schema at migration 24
CREATE FUNCTION tenant_schema_placeholder.list_rank_id_fixed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION '%.id never changes', TG_TABLE_NAME;
END
$$;

CREATE FUNCTION tenant_schema_placeholder.list_rank_mark() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'tenant_schema_placeholder'
    SET "citus.enable_ddl_propagation" TO 'off'
    AS $_$
DECLARE
    low    bigint;
    found  boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        EXECUTE format('SELECT min(id) FROM rank_new_rows WHERE %s', TG_ARGV[2]) INTO low;
    ELSIF TG_OP = 'DELETE' THEN
        EXECUTE format('SELECT min(id) FROM rank_old_rows WHERE %s', TG_ARGV[2]) INTO low;
    ELSE
        EXECUTE format('SELECT min(n.id) FROM (SELECT id, (%1$s) AS listed FROM rank_new_rows) n
            JOIN (SELECT id, (%1$s) AS listed FROM rank_old_rows) o ON o.id = n.id
            WHERE n.listed <> o.listed', TG_ARGV[2]) INTO low;
    END IF;
    IF low IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE format('LOCK TABLE %I IN ROW EXCLUSIVE MODE', TG_ARGV[1]);
    found := current_setting('transaction_isolation') <> 'read committed';
    IF NOT found THEN
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE id >= $1)', TG_ARGV[0]) INTO found USING low;
    END IF;
    IF found THEN
        EXECUTE format('INSERT INTO %I (id) VALUES ($1)', TG_ARGV[1]) USING low;
    END IF;
    RETURN NULL;
END
$_$;

CREATE FUNCTION tenant_schema_placeholder.scim_undelete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    NEW.scim_deleted := false;
    RETURN NEW;
END
$$;

CREATE FUNCTION tenant_schema_placeholder.user_custom_values_user_created() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'tenant_schema_placeholder'
    AS $$
BEGIN
    NEW.user_created_at := (SELECT created_at FROM users WHERE id = NEW.user_id);
    RETURN NEW;
END $$;

CREATE FUNCTION tenant_schema_placeholder.user_rank_key_fixed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'users.created_at and users.id never change';
END
$$;

CREATE FUNCTION tenant_schema_placeholder.user_rank_mark() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'tenant_schema_placeholder'
    SET "citus.enable_ddl_propagation" TO 'off'
    AS $$
DECLARE
    low_created timestamptz;
    low_id      bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT created_at, id INTO low_created, low_id FROM rank_new_rows ORDER BY created_at, id LIMIT 1;
    ELSE
        SELECT created_at, id INTO low_created, low_id FROM rank_old_rows ORDER BY created_at, id LIMIT 1;
    END IF;
    IF low_id IS NULL THEN
        RETURN NULL;
    END IF;
    LOCK TABLE user_rank_dirty IN ROW EXCLUSIVE MODE;
    IF current_setting('transaction_isolation') <> 'read committed'
        OR EXISTS (SELECT 1 FROM user_rank_anchors WHERE (created_at, id) >= (low_created, low_id)) THEN
        INSERT INTO user_rank_dirty (created_at, id) VALUES (low_created, low_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TABLE tenant_schema_placeholder.categories (
    id bigint NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE tenant_schema_placeholder.categories_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.categories_id_seq OWNED BY tenant_schema_placeholder.categories.id;

CREATE TABLE tenant_schema_placeholder.certificate_jobs (
    id bigint NOT NULL,
    job_id text NOT NULL,
    certificate_id text NOT NULL,
    enrolment_kind text NOT NULL,
    enrolment_id bigint NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    error text,
    blob_key text NOT NULL,
    requested_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT certificate_jobs_check CHECK (((status = 'failed'::text) = (COALESCE(error, ''::text) <> ''::text))),
    CONSTRAINT certificate_jobs_check1 CHECK (((status = 'pending'::text) = (finished_at IS NULL))),
    CONSTRAINT certificate_jobs_enrolment_kind_check CHECK ((enrolment_kind = ANY (ARRAY['topic'::text, 'pathway'::text]))),
    CONSTRAINT certificate_jobs_job_id_check CHECK ((job_id ~ '^[0-9a-f]{32}$'::text)),
    CONSTRAINT certificate_jobs_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'complete'::text, 'failed'::text])))
);

CREATE SEQUENCE tenant_schema_placeholder.certificate_jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.certificate_jobs_id_seq OWNED BY tenant_schema_placeholder.certificate_jobs.id;

CREATE TABLE tenant_schema_placeholder.custom_fields (
    id bigint NOT NULL,
    name text NOT NULL,
    field_type text NOT NULL,
    options text[] DEFAULT '{}'::text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT custom_fields_check CHECK (((field_type = 'list'::text) = (cardinality(options) > 0))),
    CONSTRAINT custom_fields_field_type_check CHECK ((field_type = ANY (ARRAY['string'::text, 'number'::text, 'date'::text, 'list'::text])))
);

CREATE SEQUENCE tenant_schema_placeholder.custom_fields_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.custom_fields_id_seq OWNED BY tenant_schema_placeholder.custom_fields.id;

CREATE TABLE tenant_schema_placeholder.enrolment_codes (
    code text NOT NULL,
    topic_id bigint,
    pathway_id bigint,
    CONSTRAINT enrolment_codes_check CHECK (((topic_id IS NULL) <> (pathway_id IS NULL))),
    CONSTRAINT enrolment_codes_code_check CHECK (((code <> ''::text) AND (code !~ '\s'::text)))
);

ALTER TABLE ONLY tenant_schema_placeholder.enrolment_codes REPLICA IDENTITY FULL;

CREATE TABLE tenant_schema_placeholder.external_knowledge_categories (
    knowledge_id bigint NOT NULL,
    category_id bigint NOT NULL,
    "position" smallint NOT NULL,
    minutes integer DEFAULT 0 NOT NULL,
    points numeric(12,2) DEFAULT 0 NOT NULL,
    CONSTRAINT external_knowledge_categories_minutes_check CHECK ((minutes >= 0)),
    CONSTRAINT external_knowledge_categories_points_check CHECK ((points >= (0)::numeric)),
    CONSTRAINT external_knowledge_categories_position_check CHECK ((("position" >= 1) AND ("position" <= 3)))
);

CREATE TABLE tenant_schema_placeholder.external_knowledge_skills (
    knowledge_id bigint NOT NULL,
    skill_id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.external_knowledges (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    knowledge_type smallint NOT NULL,
    title text NOT NULL,
    code text,
    provider text DEFAULT ''::text NOT NULL,
    date_obtained date NOT NULL,
    certificate_number text DEFAULT ''::text NOT NULL,
    country_obtained text DEFAULT ''::text NOT NULL,
    state_obtained text DEFAULT ''::text NOT NULL,
    expires date,
    qualification_level text,
    assessment_score numeric DEFAULT 0 NOT NULL,
    total_time integer DEFAULT 0 NOT NULL,
    notes text DEFAULT ''::text NOT NULL,
    klass text DEFAULT ''::text NOT NULL,
    development_focus text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT external_knowledges_check CHECK (((knowledge_type = 6) OR (development_focus IS NULL))),
    CONSTRAINT external_knowledges_check1 CHECK (((knowledge_type <> 6) OR (code IS NULL) OR (code = ANY (ARRAY['Initial'::text, 'Mid Review'::text, 'End Review'::text])))),
    CONSTRAINT external_knowledges_development_focus_check CHECK ((development_focus = ANY (ARRAY['At Level'::text, 'Transition'::text, 'Progression'::text]))),
    CONSTRAINT external_knowledges_knowledge_type_check CHECK (((knowledge_type >= 1) AND (knowledge_type <= 6))),
    CONSTRAINT external_knowledges_title_check CHECK ((title <> ''::text)),
    CONSTRAINT external_knowledges_total_time_check CHECK ((total_time >= 0))
);

CREATE SEQUENCE tenant_schema_placeholder.external_knowledges_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.external_knowledges_id_seq OWNED BY tenant_schema_placeholder.external_knowledges.id;

CREATE TABLE tenant_schema_placeholder.goals (
    id bigint NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE tenant_schema_placeholder.goals_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.goals_id_seq OWNED BY tenant_schema_placeholder.goals.id;

CREATE TABLE tenant_schema_placeholder.groups (
    id bigint NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    scim_external_id text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE tenant_schema_placeholder.groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.groups_id_seq OWNED BY tenant_schema_placeholder.groups.id;

CREATE TABLE tenant_schema_placeholder.idempotency_keys (
    key text NOT NULL,
    fingerprint bytea NOT NULL,
    state text NOT NULL,
    claim bytea NOT NULL,
    status integer,
    content_type text,
    location text,
    body bytea,
    locked_until timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT idempotency_keys_check CHECK (((state = 'running'::text) OR ((status IS NOT NULL) AND (body IS NOT NULL)))),
    CONSTRAINT idempotency_keys_state_check CHECK ((state = ANY (ARRAY['running'::text, 'done'::text])))
);

CREATE TABLE tenant_schema_placeholder.knowledge_rank_anchors (
    rank bigint NOT NULL,
    id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.knowledge_rank_dirty (
    id bigint NOT NULL
);

ALTER TABLE ONLY tenant_schema_placeholder.knowledge_rank_dirty REPLICA IDENTITY FULL;

CREATE TABLE tenant_schema_placeholder.pathway_enrolment_rank_anchors (
    rank bigint NOT NULL,
    id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.pathway_enrolment_rank_dirty (
    id bigint NOT NULL
);

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolment_rank_dirty REPLICA IDENTITY FULL;

CREATE TABLE tenant_schema_placeholder.pathway_enrolment_skills (
    enrolment_id bigint NOT NULL,
    skill_id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.pathway_enrolments (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    pathway_id bigint NOT NULL,
    status text DEFAULT 'Unexplored'::text NOT NULL,
    due_date timestamp with time zone,
    conquered_at timestamp with time zone,
    certified_date timestamp with time zone,
    recertification_allowed boolean DEFAULT false NOT NULL,
    enrolled_by text DEFAULT 'api'::text NOT NULL,
    removed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT pathway_enrolments_status_check CHECK ((status = ANY (ARRAY['Pre-enrolled'::text, 'Unexplored'::text, 'Exploring'::text, 'Applying'::text, 'Conquered'::text, 'recertify'::text])))
);

CREATE SEQUENCE tenant_schema_placeholder.pathway_enrolments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.pathway_enrolments_id_seq OWNED BY tenant_schema_placeholder.pathway_enrolments.id;

CREATE TABLE tenant_schema_placeholder.pathway_skills (
    pathway_id bigint NOT NULL,
    skill_id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.pathway_topics (
    pathway_id bigint NOT NULL,
    topic_id bigint NOT NULL,
    "position" integer NOT NULL,
    mandatory boolean DEFAULT true NOT NULL,
    CONSTRAINT pathway_topics_position_check CHECK (("position" > 0))
);

CREATE TABLE tenant_schema_placeholder.pathways (
    id bigint NOT NULL,
    title text NOT NULL,
    external_id text DEFAULT ''::text NOT NULL,
    show_certificate boolean DEFAULT false NOT NULL,
    recertification_allowed boolean DEFAULT false NOT NULL,
    certify_days integer,
    ordered boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT pathways_certify_days_check CHECK ((certify_days > 0)),
    CONSTRAINT pathways_title_check CHECK ((title <> ''::text))
);

CREATE SEQUENCE tenant_schema_placeholder.pathways_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.pathways_id_seq OWNED BY tenant_schema_placeholder.pathways.id;

CREATE TABLE tenant_schema_placeholder.roles (
    id bigint NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE tenant_schema_placeholder.roles_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.roles_id_seq OWNED BY tenant_schema_placeholder.roles.id;

CREATE TABLE tenant_schema_placeholder.skills (
    id bigint NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE tenant_schema_placeholder.skills_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.skills_id_seq OWNED BY tenant_schema_placeholder.skills.id;

CREATE TABLE tenant_schema_placeholder.topic_categories (
    topic_id bigint NOT NULL,
    category_id bigint NOT NULL,
    minutes integer DEFAULT 0 NOT NULL,
    points numeric(12,2) DEFAULT 0 NOT NULL,
    CONSTRAINT topic_categories_minutes_check CHECK ((minutes >= 0))
);

CREATE TABLE tenant_schema_placeholder.topic_enrolment_rank_anchors (
    rank bigint NOT NULL,
    id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.topic_enrolment_rank_dirty (
    id bigint NOT NULL
);

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolment_rank_dirty REPLICA IDENTITY FULL;

CREATE TABLE tenant_schema_placeholder.topic_enrolment_skills (
    enrolment_id bigint NOT NULL,
    skill_id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.topic_enrolments (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    topic_id bigint NOT NULL,
    status text DEFAULT 'Unexplored'::text NOT NULL,
    relationship text DEFAULT 'direct'::text NOT NULL,
    due_date timestamp with time zone,
    completed_topic_at timestamp with time zone,
    certified_date timestamp with time zone,
    recertification_allowed boolean DEFAULT false NOT NULL,
    enrolled_by text,
    progress_minutes integer DEFAULT 0 NOT NULL,
    version text,
    removed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT topic_enrolments_check CHECK (((status = 'Conquered'::text) = (completed_topic_at IS NOT NULL))),
    CONSTRAINT topic_enrolments_progress_minutes_check CHECK ((progress_minutes >= 0)),
    CONSTRAINT topic_enrolments_relationship_check CHECK ((relationship = ANY (ARRAY['direct'::text, 'pathway'::text]))),
    CONSTRAINT topic_enrolments_status_check CHECK ((status = ANY (ARRAY['Unexplored'::text, 'Exploring'::text, 'Applying'::text, 'Conquered'::text])))
);

CREATE SEQUENCE tenant_schema_placeholder.topic_enrolments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.topic_enrolments_id_seq OWNED BY tenant_schema_placeholder.topic_enrolments.id;

CREATE TABLE tenant_schema_placeholder.topic_skills (
    topic_id bigint NOT NULL,
    skill_id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.topics (
    id bigint NOT NULL,
    title text NOT NULL,
    knowledge_type smallint DEFAULT 1 NOT NULL,
    external_id text DEFAULT ''::text NOT NULL,
    show_certificate boolean DEFAULT false NOT NULL,
    recertification_allowed boolean DEFAULT false NOT NULL,
    certify_days integer,
    minutes integer DEFAULT 0 NOT NULL,
    cpd_minutes integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT topics_certify_days_check CHECK ((certify_days > 0)),
    CONSTRAINT topics_cpd_minutes_check CHECK ((cpd_minutes >= 0)),
    CONSTRAINT topics_knowledge_type_check CHECK ((knowledge_type = ANY (ARRAY[1, 2]))),
    CONSTRAINT topics_minutes_check CHECK ((minutes >= 0)),
    CONSTRAINT topics_title_check CHECK ((title <> ''::text))
);

CREATE SEQUENCE tenant_schema_placeholder.topics_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.topics_id_seq OWNED BY tenant_schema_placeholder.topics.id;

CREATE TABLE tenant_schema_placeholder.user_custom_values (
    user_id bigint NOT NULL,
    field_id bigint NOT NULL,
    value text NOT NULL,
    user_created_at timestamp with time zone NOT NULL
);

CREATE TABLE tenant_schema_placeholder.user_goals (
    user_id bigint NOT NULL,
    goal_id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.user_groups (
    user_id bigint NOT NULL,
    group_id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.user_rank_anchors (
    rank bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    id bigint NOT NULL
);

CREATE TABLE tenant_schema_placeholder.user_rank_dirty (
    created_at timestamp with time zone NOT NULL,
    id bigint NOT NULL
);

ALTER TABLE ONLY tenant_schema_placeholder.user_rank_dirty REPLICA IDENTITY FULL;

CREATE TABLE tenant_schema_placeholder.user_roles (
    user_id bigint NOT NULL,
    "position" smallint NOT NULL,
    role_id bigint NOT NULL,
    CONSTRAINT user_roles_position_check CHECK ((("position" >= 1) AND ("position" <= 5)))
);

CREATE TABLE tenant_schema_placeholder.users (
    id bigint NOT NULL,
    user_name text NOT NULL,
    first_name text NOT NULL,
    last_name text NOT NULL,
    email text NOT NULL,
    manager_email text,
    manager_2_email text,
    manager_3_email text,
    manager_4_email text,
    manager_5_email text,
    mentor_email text,
    lms_learner_id text,
    lms_reference text,
    org_admin boolean DEFAULT false NOT NULL,
    admin_type smallint,
    creator boolean DEFAULT false NOT NULL,
    current_sign_in_at timestamp with time zone,
    deactivate_scheduled_date timestamp with time zone,
    reactivate_scheduled_date timestamp with time zone,
    language text DEFAULT 'en'::text NOT NULL,
    created_by text DEFAULT 'api'::text NOT NULL,
    timezone text NOT NULL,
    user_notifications_enabled boolean DEFAULT true NOT NULL,
    force_pwd_reset_next_login boolean DEFAULT false NOT NULL,
    manager_email_report_1st_month boolean DEFAULT false NOT NULL,
    manager_email_report_15th_month boolean DEFAULT false NOT NULL,
    team_leader_report_frequency text,
    learner_report_frequency text,
    assessor_report_frequency text,
    default_landing_page text,
    login text DEFAULT 'internal'::text NOT NULL,
    type text DEFAULT 'Staff'::text NOT NULL,
    active boolean DEFAULT true NOT NULL,
    platform_champion boolean DEFAULT false NOT NULL,
    password_hash text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    scim_external_id text,
    scim_deleted boolean DEFAULT false NOT NULL,
    manager_email_lower text GENERATED ALWAYS AS (lower(manager_email)) STORED,
    manager_2_email_lower text GENERATED ALWAYS AS (lower(manager_2_email)) STORED,
    manager_3_email_lower text GENERATED ALWAYS AS (lower(manager_3_email)) STORED,
    manager_4_email_lower text GENERATED ALWAYS AS (lower(manager_4_email)) STORED,
    manager_5_email_lower text GENERATED ALWAYS AS (lower(manager_5_email)) STORED,
    CONSTRAINT users_admin_type_check CHECK (((admin_type >= 0) AND (admin_type <= 8))),
    CONSTRAINT users_check CHECK (((login = 'internal'::text) OR (password_hash IS NULL))),
    CONSTRAINT users_login_check CHECK ((login = ANY (ARRAY['internal'::text, 'external'::text]))),
    CONSTRAINT users_user_name_check CHECK ((user_name <> ''::text))
);

CREATE SEQUENCE tenant_schema_placeholder.users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.users_id_seq OWNED BY tenant_schema_placeholder.users.id;

CREATE TABLE tenant_schema_placeholder.webhook_attempts (
    id bigint NOT NULL,
    delivery_id bigint NOT NULL,
    attempt integer NOT NULL,
    status_code integer,
    duration_ms integer NOT NULL,
    error text,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE tenant_schema_placeholder.webhook_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.webhook_attempts_id_seq OWNED BY tenant_schema_placeholder.webhook_attempts.id;

CREATE TABLE tenant_schema_placeholder.webhook_deliveries (
    id bigint NOT NULL,
    endpoint_id bigint NOT NULL,
    event_id text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    max_attempts integer,
    next_attempt_at timestamp with time zone,
    last_attempt_at timestamp with time zone,
    last_status_code integer,
    last_duration_ms integer,
    last_error text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text])))
);

CREATE SEQUENCE tenant_schema_placeholder.webhook_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.webhook_deliveries_id_seq OWNED BY tenant_schema_placeholder.webhook_deliveries.id;

CREATE TABLE tenant_schema_placeholder.webhook_endpoints (
    id bigint NOT NULL,
    url text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    events text[] NOT NULL,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_expires_at timestamp with time zone,
    enabled boolean DEFAULT true NOT NULL,
    disabled_reason text,
    disabled_at timestamp with time zone,
    failing_since timestamp with time zone,
    paused_until timestamp with time zone,
    lease_owner text,
    lease_until timestamp with time zone,
    drain_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT webhook_secrets_encrypted CHECK (((secret ~~ 'lgenc1:%'::text) AND ((previous_secret IS NULL) OR (previous_secret ~~ 'lgenc1:%'::text))))
);

CREATE SEQUENCE tenant_schema_placeholder.webhook_endpoints_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE tenant_schema_placeholder.webhook_endpoints_id_seq OWNED BY tenant_schema_placeholder.webhook_endpoints.id;

CREATE TABLE tenant_schema_placeholder.webhook_events (
    id text NOT NULL,
    type text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    data json NOT NULL
);

ALTER TABLE ONLY tenant_schema_placeholder.categories ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.categories_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.certificate_jobs ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.certificate_jobs_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.custom_fields ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.custom_fields_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledges ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.external_knowledges_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.goals ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.goals_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.groups ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.groups_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolments ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.pathway_enrolments_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.pathways ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.pathways_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.roles ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.roles_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.skills ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.skills_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolments ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.topic_enrolments_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.topics ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.topics_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.users ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.users_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.webhook_attempts ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.webhook_attempts_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.webhook_deliveries ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.webhook_deliveries_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.webhook_endpoints ALTER COLUMN id SET DEFAULT nextval('tenant_schema_placeholder.webhook_endpoints_id_seq'::regclass);

ALTER TABLE ONLY tenant_schema_placeholder.categories
    ADD CONSTRAINT categories_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.certificate_jobs
    ADD CONSTRAINT certificate_jobs_certificate_id_key UNIQUE (certificate_id);

ALTER TABLE ONLY tenant_schema_placeholder.certificate_jobs
    ADD CONSTRAINT certificate_jobs_job_id_key UNIQUE (job_id);

ALTER TABLE ONLY tenant_schema_placeholder.certificate_jobs
    ADD CONSTRAINT certificate_jobs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.custom_fields
    ADD CONSTRAINT custom_fields_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.enrolment_codes
    ADD CONSTRAINT enrolment_codes_pathway_id_key UNIQUE (pathway_id);

ALTER TABLE ONLY tenant_schema_placeholder.enrolment_codes
    ADD CONSTRAINT enrolment_codes_topic_id_key UNIQUE (topic_id);

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledge_categories
    ADD CONSTRAINT external_knowledge_categories_knowledge_id_position_key UNIQUE (knowledge_id, "position");

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledge_categories
    ADD CONSTRAINT external_knowledge_categories_pkey PRIMARY KEY (knowledge_id, category_id);

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledge_skills
    ADD CONSTRAINT external_knowledge_skills_pkey PRIMARY KEY (knowledge_id, skill_id);

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledges
    ADD CONSTRAINT external_knowledges_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.goals
    ADD CONSTRAINT goals_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.groups
    ADD CONSTRAINT groups_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (key);

ALTER TABLE ONLY tenant_schema_placeholder.knowledge_rank_anchors
    ADD CONSTRAINT knowledge_rank_anchors_id_key UNIQUE (id);

ALTER TABLE ONLY tenant_schema_placeholder.knowledge_rank_anchors
    ADD CONSTRAINT knowledge_rank_anchors_pkey PRIMARY KEY (rank);

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolment_rank_anchors
    ADD CONSTRAINT pathway_enrolment_rank_anchors_id_key UNIQUE (id);

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolment_rank_anchors
    ADD CONSTRAINT pathway_enrolment_rank_anchors_pkey PRIMARY KEY (rank);

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolment_skills
    ADD CONSTRAINT pathway_enrolment_skills_pkey PRIMARY KEY (enrolment_id, skill_id);

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolments
    ADD CONSTRAINT pathway_enrolments_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.pathway_skills
    ADD CONSTRAINT pathway_skills_pkey PRIMARY KEY (pathway_id, skill_id);

ALTER TABLE ONLY tenant_schema_placeholder.pathway_topics
    ADD CONSTRAINT pathway_topics_pathway_id_position_key UNIQUE (pathway_id, "position");

ALTER TABLE ONLY tenant_schema_placeholder.pathway_topics
    ADD CONSTRAINT pathway_topics_pkey PRIMARY KEY (pathway_id, topic_id);

ALTER TABLE ONLY tenant_schema_placeholder.pathways
    ADD CONSTRAINT pathways_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.roles
    ADD CONSTRAINT roles_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.skills
    ADD CONSTRAINT skills_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.topic_categories
    ADD CONSTRAINT topic_categories_pkey PRIMARY KEY (topic_id, category_id);

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolment_rank_anchors
    ADD CONSTRAINT topic_enrolment_rank_anchors_id_key UNIQUE (id);

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolment_rank_anchors
    ADD CONSTRAINT topic_enrolment_rank_anchors_pkey PRIMARY KEY (rank);

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolment_skills
    ADD CONSTRAINT topic_enrolment_skills_pkey PRIMARY KEY (enrolment_id, skill_id);

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolments
    ADD CONSTRAINT topic_enrolments_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.topic_skills
    ADD CONSTRAINT topic_skills_pkey PRIMARY KEY (topic_id, skill_id);

ALTER TABLE ONLY tenant_schema_placeholder.topics
    ADD CONSTRAINT topics_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.user_custom_values
    ADD CONSTRAINT user_custom_values_pkey PRIMARY KEY (user_id, field_id);

ALTER TABLE ONLY tenant_schema_placeholder.user_goals
    ADD CONSTRAINT user_goals_pkey PRIMARY KEY (user_id, goal_id);

ALTER TABLE ONLY tenant_schema_placeholder.user_groups
    ADD CONSTRAINT user_groups_pkey PRIMARY KEY (user_id, group_id);

ALTER TABLE ONLY tenant_schema_placeholder.user_rank_anchors
    ADD CONSTRAINT user_rank_anchors_pkey PRIMARY KEY (rank);

ALTER TABLE ONLY tenant_schema_placeholder.user_roles
    ADD CONSTRAINT user_roles_pkey PRIMARY KEY (user_id, "position");

ALTER TABLE ONLY tenant_schema_placeholder.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tenant_schema_placeholder.webhook_events
    ADD CONSTRAINT webhook_events_pkey PRIMARY KEY (id);

CREATE UNIQUE INDEX categories_name ON tenant_schema_placeholder.categories USING btree (lower(name));

CREATE INDEX certificate_jobs_expires ON tenant_schema_placeholder.certificate_jobs USING btree (expires_at);

CREATE UNIQUE INDEX certificate_jobs_pending ON tenant_schema_placeholder.certificate_jobs USING btree (enrolment_kind, enrolment_id) WHERE (status = 'pending'::text);

CREATE UNIQUE INDEX custom_fields_name ON tenant_schema_placeholder.custom_fields USING btree (lower(name));

CREATE UNIQUE INDEX enrolment_codes_code ON tenant_schema_placeholder.enrolment_codes USING btree (lower(code));

CREATE INDEX external_knowledge_categories_category ON tenant_schema_placeholder.external_knowledge_categories USING btree (category_id);

CREATE INDEX external_knowledge_skills_skill ON tenant_schema_placeholder.external_knowledge_skills USING btree (skill_id);

CREATE INDEX external_knowledges_updated ON tenant_schema_placeholder.external_knowledges USING btree (updated_at, id);

CREATE INDEX external_knowledges_user ON tenant_schema_placeholder.external_knowledges USING btree (user_id, id);

CREATE UNIQUE INDEX goals_name ON tenant_schema_placeholder.goals USING btree (lower(name));

CREATE UNIQUE INDEX groups_name ON tenant_schema_placeholder.groups USING btree (lower(name));

CREATE INDEX groups_scim_external_id ON tenant_schema_placeholder.groups USING btree (scim_external_id);

CREATE INDEX idempotency_keys_expires_at ON tenant_schema_placeholder.idempotency_keys USING btree (expires_at);

CREATE INDEX knowledge_rank_dirty_id ON tenant_schema_placeholder.knowledge_rank_dirty USING btree (id);

CREATE INDEX pathway_enrolment_rank_dirty_id ON tenant_schema_placeholder.pathway_enrolment_rank_dirty USING btree (id);

CREATE INDEX pathway_enrolment_skills_skill ON tenant_schema_placeholder.pathway_enrolment_skills USING btree (skill_id);

CREATE INDEX pathway_enrolments_certified ON tenant_schema_placeholder.pathway_enrolments USING btree (certified_date) WHERE ((removed_at IS NULL) AND (status = 'Conquered'::text) AND recertification_allowed AND (certified_date IS NOT NULL));

CREATE UNIQUE INDEX pathway_enrolments_current ON tenant_schema_placeholder.pathway_enrolments USING btree (user_id, pathway_id) WHERE (removed_at IS NULL);

CREATE INDEX pathway_enrolments_listed ON tenant_schema_placeholder.pathway_enrolments USING btree (id) WHERE (removed_at IS NULL);

CREATE INDEX pathway_enrolments_pathway ON tenant_schema_placeholder.pathway_enrolments USING btree (pathway_id, id) WHERE (removed_at IS NULL);

CREATE INDEX pathway_enrolments_updated ON tenant_schema_placeholder.pathway_enrolments USING btree (updated_at, id) WHERE (removed_at IS NULL);

CREATE INDEX pathway_enrolments_user ON tenant_schema_placeholder.pathway_enrolments USING btree (user_id, id) WHERE (removed_at IS NULL);

CREATE INDEX pathway_skills_skill ON tenant_schema_placeholder.pathway_skills USING btree (skill_id);

CREATE INDEX pathway_topics_topic ON tenant_schema_placeholder.pathway_topics USING btree (topic_id);

CREATE UNIQUE INDEX roles_name ON tenant_schema_placeholder.roles USING btree (lower(name));

CREATE UNIQUE INDEX skills_name ON tenant_schema_placeholder.skills USING btree (lower(name));

CREATE INDEX topic_categories_category ON tenant_schema_placeholder.topic_categories USING btree (category_id);

CREATE INDEX topic_enrolment_rank_dirty_id ON tenant_schema_placeholder.topic_enrolment_rank_dirty USING btree (id);

CREATE INDEX topic_enrolment_skills_skill ON tenant_schema_placeholder.topic_enrolment_skills USING btree (skill_id);

CREATE UNIQUE INDEX topic_enrolments_current ON tenant_schema_placeholder.topic_enrolments USING btree (user_id, topic_id) WHERE (removed_at IS NULL);

CREATE INDEX topic_enrolments_listed ON tenant_schema_placeholder.topic_enrolments USING btree (id) WHERE (removed_at IS NULL);

CREATE INDEX topic_enrolments_topic ON tenant_schema_placeholder.topic_enrolments USING btree (topic_id, id) WHERE (removed_at IS NULL);

CREATE INDEX topic_enrolments_updated ON tenant_schema_placeholder.topic_enrolments USING btree (updated_at, id) WHERE (removed_at IS NULL);

CREATE INDEX topic_enrolments_user ON tenant_schema_placeholder.topic_enrolments USING btree (user_id, id) WHERE (removed_at IS NULL);

CREATE INDEX topic_skills_skill ON tenant_schema_placeholder.topic_skills USING btree (skill_id);

CREATE INDEX user_custom_values_field ON tenant_schema_placeholder.user_custom_values USING btree (field_id);

CREATE INDEX user_custom_values_long ON tenant_schema_placeholder.user_custom_values USING btree (field_id) WHERE (length(value) > 64);

CREATE INDEX user_custom_values_lower_trgm ON tenant_schema_placeholder.user_custom_values USING gin (lower(value) public.gin_trgm_ops);

CREATE INDEX user_custom_values_value ON tenant_schema_placeholder.user_custom_values USING btree (field_id, value, user_created_at, user_id) WHERE (length(value) <= 64);

CREATE INDEX user_goals_goal ON tenant_schema_placeholder.user_goals USING btree (goal_id);

CREATE INDEX user_groups_group ON tenant_schema_placeholder.user_groups USING btree (group_id);

CREATE UNIQUE INDEX user_rank_anchors_key ON tenant_schema_placeholder.user_rank_anchors USING btree (created_at, id);

CREATE INDEX user_rank_dirty_key ON tenant_schema_placeholder.user_rank_dirty USING btree (created_at, id);

CREATE INDEX user_roles_role ON tenant_schema_placeholder.user_roles USING btree (role_id);

CREATE INDEX users_active ON tenant_schema_placeholder.users USING btree (created_at DESC, id DESC) WHERE active;

CREATE INDEX users_created ON tenant_schema_placeholder.users USING btree (created_at DESC, id DESC);

CREATE INDEX users_deactivate_scheduled ON tenant_schema_placeholder.users USING btree (deactivate_scheduled_date) WHERE (deactivate_scheduled_date IS NOT NULL);

CREATE UNIQUE INDEX users_email ON tenant_schema_placeholder.users USING btree (lower(email));

CREATE INDEX users_inactive ON tenant_schema_placeholder.users USING btree (created_at DESC, id DESC) WHERE (NOT active);

CREATE UNIQUE INDEX users_lms ON tenant_schema_placeholder.users USING btree (lms_learner_id, lms_reference) WHERE ((lms_learner_id IS NOT NULL) AND (lms_reference IS NOT NULL));

CREATE INDEX users_manager_2_email_lower ON tenant_schema_placeholder.users USING btree (manager_2_email_lower) WHERE (manager_2_email_lower IS NOT NULL);

CREATE INDEX users_manager_3_email_lower ON tenant_schema_placeholder.users USING btree (manager_3_email_lower) WHERE (manager_3_email_lower IS NOT NULL);

CREATE INDEX users_manager_4_email_lower ON tenant_schema_placeholder.users USING btree (manager_4_email_lower) WHERE (manager_4_email_lower IS NOT NULL);

CREATE INDEX users_manager_5_email_lower ON tenant_schema_placeholder.users USING btree (manager_5_email_lower) WHERE (manager_5_email_lower IS NOT NULL);

CREATE INDEX users_manager_email_lower ON tenant_schema_placeholder.users USING btree (manager_email_lower) WHERE (manager_email_lower IS NOT NULL);

CREATE INDEX users_reactivate_scheduled ON tenant_schema_placeholder.users USING btree (reactivate_scheduled_date) WHERE (reactivate_scheduled_date IS NOT NULL);

CREATE INDEX users_scim_external_id ON tenant_schema_placeholder.users USING btree (scim_external_id);

CREATE INDEX users_updated ON tenant_schema_placeholder.users USING btree (updated_at) INCLUDE (created_at, id);

CREATE UNIQUE INDEX users_user_name ON tenant_schema_placeholder.users USING btree (user_name);

CREATE INDEX webhook_attempts_delivery ON tenant_schema_placeholder.webhook_attempts USING btree (delivery_id, attempt);

CREATE INDEX webhook_deliveries_endpoint ON tenant_schema_placeholder.webhook_deliveries USING btree (endpoint_id, id);

CREATE INDEX webhook_deliveries_event ON tenant_schema_placeholder.webhook_deliveries USING btree (event_id);

CREATE INDEX webhook_deliveries_pending ON tenant_schema_placeholder.webhook_deliveries USING btree (endpoint_id, id) WHERE (status = 'pending'::text);

CREATE INDEX webhook_events_created_at ON tenant_schema_placeholder.webhook_events USING btree (created_at);

CREATE TRIGGER external_knowledges_id_fixed BEFORE UPDATE OF id ON tenant_schema_placeholder.external_knowledges FOR EACH ROW WHEN ((old.id <> new.id)) EXECUTE FUNCTION tenant_schema_placeholder.list_rank_id_fixed();

CREATE TRIGGER external_knowledges_rank_delete AFTER DELETE ON tenant_schema_placeholder.external_knowledges REFERENCING OLD TABLE AS rank_old_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.list_rank_mark('knowledge_rank_anchors', 'knowledge_rank_dirty', 'true');

CREATE TRIGGER external_knowledges_rank_insert AFTER INSERT ON tenant_schema_placeholder.external_knowledges REFERENCING NEW TABLE AS rank_new_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.list_rank_mark('knowledge_rank_anchors', 'knowledge_rank_dirty', 'true');

CREATE TRIGGER pathway_enrolments_id_fixed BEFORE UPDATE OF id ON tenant_schema_placeholder.pathway_enrolments FOR EACH ROW WHEN ((old.id <> new.id)) EXECUTE FUNCTION tenant_schema_placeholder.list_rank_id_fixed();

CREATE TRIGGER pathway_enrolments_rank_delete AFTER DELETE ON tenant_schema_placeholder.pathway_enrolments REFERENCING OLD TABLE AS rank_old_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.list_rank_mark('pathway_enrolment_rank_anchors', 'pathway_enrolment_rank_dirty', 'removed_at IS NULL');

CREATE TRIGGER pathway_enrolments_rank_insert AFTER INSERT ON tenant_schema_placeholder.pathway_enrolments REFERENCING NEW TABLE AS rank_new_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.list_rank_mark('pathway_enrolment_rank_anchors', 'pathway_enrolment_rank_dirty', 'removed_at IS NULL');

CREATE TRIGGER pathway_enrolments_rank_update AFTER UPDATE ON tenant_schema_placeholder.pathway_enrolments REFERENCING OLD TABLE AS rank_old_rows NEW TABLE AS rank_new_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.list_rank_mark('pathway_enrolment_rank_anchors', 'pathway_enrolment_rank_dirty', 'removed_at IS NULL');

CREATE TRIGGER topic_enrolments_id_fixed BEFORE UPDATE OF id ON tenant_schema_placeholder.topic_enrolments FOR EACH ROW WHEN ((old.id <> new.id)) EXECUTE FUNCTION tenant_schema_placeholder.list_rank_id_fixed();

CREATE TRIGGER topic_enrolments_rank_delete AFTER DELETE ON tenant_schema_placeholder.topic_enrolments REFERENCING OLD TABLE AS rank_old_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.list_rank_mark('topic_enrolment_rank_anchors', 'topic_enrolment_rank_dirty', 'removed_at IS NULL');

CREATE TRIGGER topic_enrolments_rank_insert AFTER INSERT ON tenant_schema_placeholder.topic_enrolments REFERENCING NEW TABLE AS rank_new_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.list_rank_mark('topic_enrolment_rank_anchors', 'topic_enrolment_rank_dirty', 'removed_at IS NULL');

CREATE TRIGGER topic_enrolments_rank_update AFTER UPDATE ON tenant_schema_placeholder.topic_enrolments REFERENCING OLD TABLE AS rank_old_rows NEW TABLE AS rank_new_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.list_rank_mark('topic_enrolment_rank_anchors', 'topic_enrolment_rank_dirty', 'removed_at IS NULL');

CREATE TRIGGER user_custom_values_user_created BEFORE INSERT OR UPDATE OF user_id ON tenant_schema_placeholder.user_custom_values FOR EACH ROW EXECUTE FUNCTION tenant_schema_placeholder.user_custom_values_user_created();

CREATE TRIGGER users_rank_delete AFTER DELETE ON tenant_schema_placeholder.users REFERENCING OLD TABLE AS rank_old_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.user_rank_mark();

CREATE TRIGGER users_rank_insert AFTER INSERT ON tenant_schema_placeholder.users REFERENCING NEW TABLE AS rank_new_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_schema_placeholder.user_rank_mark();

CREATE TRIGGER users_rank_key_fixed BEFORE UPDATE OF created_at, id ON tenant_schema_placeholder.users FOR EACH ROW WHEN (((old.created_at IS DISTINCT FROM new.created_at) OR (old.id <> new.id))) EXECUTE FUNCTION tenant_schema_placeholder.user_rank_key_fixed();

CREATE TRIGGER users_scim_undelete BEFORE UPDATE OF active ON tenant_schema_placeholder.users FOR EACH ROW WHEN ((new.active AND (NOT old.active) AND old.scim_deleted)) EXECUTE FUNCTION tenant_schema_placeholder.scim_undelete();

ALTER TABLE ONLY tenant_schema_placeholder.enrolment_codes
    ADD CONSTRAINT enrolment_codes_pathway_id_fkey FOREIGN KEY (pathway_id) REFERENCES tenant_schema_placeholder.pathways(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.enrolment_codes
    ADD CONSTRAINT enrolment_codes_topic_id_fkey FOREIGN KEY (topic_id) REFERENCES tenant_schema_placeholder.topics(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledge_categories
    ADD CONSTRAINT external_knowledge_categories_category_id_fkey FOREIGN KEY (category_id) REFERENCES tenant_schema_placeholder.categories(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledge_categories
    ADD CONSTRAINT external_knowledge_categories_knowledge_id_fkey FOREIGN KEY (knowledge_id) REFERENCES tenant_schema_placeholder.external_knowledges(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledge_skills
    ADD CONSTRAINT external_knowledge_skills_knowledge_id_fkey FOREIGN KEY (knowledge_id) REFERENCES tenant_schema_placeholder.external_knowledges(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledge_skills
    ADD CONSTRAINT external_knowledge_skills_skill_id_fkey FOREIGN KEY (skill_id) REFERENCES tenant_schema_placeholder.skills(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.external_knowledges
    ADD CONSTRAINT external_knowledges_user_id_fkey FOREIGN KEY (user_id) REFERENCES tenant_schema_placeholder.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolment_skills
    ADD CONSTRAINT pathway_enrolment_skills_enrolment_id_fkey FOREIGN KEY (enrolment_id) REFERENCES tenant_schema_placeholder.pathway_enrolments(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolment_skills
    ADD CONSTRAINT pathway_enrolment_skills_skill_id_fkey FOREIGN KEY (skill_id) REFERENCES tenant_schema_placeholder.skills(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolments
    ADD CONSTRAINT pathway_enrolments_pathway_id_fkey FOREIGN KEY (pathway_id) REFERENCES tenant_schema_placeholder.pathways(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.pathway_enrolments
    ADD CONSTRAINT pathway_enrolments_user_id_fkey FOREIGN KEY (user_id) REFERENCES tenant_schema_placeholder.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.pathway_skills
    ADD CONSTRAINT pathway_skills_pathway_id_fkey FOREIGN KEY (pathway_id) REFERENCES tenant_schema_placeholder.pathways(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.pathway_skills
    ADD CONSTRAINT pathway_skills_skill_id_fkey FOREIGN KEY (skill_id) REFERENCES tenant_schema_placeholder.skills(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.pathway_topics
    ADD CONSTRAINT pathway_topics_pathway_id_fkey FOREIGN KEY (pathway_id) REFERENCES tenant_schema_placeholder.pathways(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.pathway_topics
    ADD CONSTRAINT pathway_topics_topic_id_fkey FOREIGN KEY (topic_id) REFERENCES tenant_schema_placeholder.topics(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.topic_categories
    ADD CONSTRAINT topic_categories_category_id_fkey FOREIGN KEY (category_id) REFERENCES tenant_schema_placeholder.categories(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.topic_categories
    ADD CONSTRAINT topic_categories_topic_id_fkey FOREIGN KEY (topic_id) REFERENCES tenant_schema_placeholder.topics(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolment_skills
    ADD CONSTRAINT topic_enrolment_skills_enrolment_id_fkey FOREIGN KEY (enrolment_id) REFERENCES tenant_schema_placeholder.topic_enrolments(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolment_skills
    ADD CONSTRAINT topic_enrolment_skills_skill_id_fkey FOREIGN KEY (skill_id) REFERENCES tenant_schema_placeholder.skills(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolments
    ADD CONSTRAINT topic_enrolments_topic_id_fkey FOREIGN KEY (topic_id) REFERENCES tenant_schema_placeholder.topics(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.topic_enrolments
    ADD CONSTRAINT topic_enrolments_user_id_fkey FOREIGN KEY (user_id) REFERENCES tenant_schema_placeholder.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.topic_skills
    ADD CONSTRAINT topic_skills_skill_id_fkey FOREIGN KEY (skill_id) REFERENCES tenant_schema_placeholder.skills(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.topic_skills
    ADD CONSTRAINT topic_skills_topic_id_fkey FOREIGN KEY (topic_id) REFERENCES tenant_schema_placeholder.topics(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.user_custom_values
    ADD CONSTRAINT user_custom_values_field_id_fkey FOREIGN KEY (field_id) REFERENCES tenant_schema_placeholder.custom_fields(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.user_custom_values
    ADD CONSTRAINT user_custom_values_user_id_fkey FOREIGN KEY (user_id) REFERENCES tenant_schema_placeholder.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.user_goals
    ADD CONSTRAINT user_goals_goal_id_fkey FOREIGN KEY (goal_id) REFERENCES tenant_schema_placeholder.goals(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.user_goals
    ADD CONSTRAINT user_goals_user_id_fkey FOREIGN KEY (user_id) REFERENCES tenant_schema_placeholder.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.user_groups
    ADD CONSTRAINT user_groups_group_id_fkey FOREIGN KEY (group_id) REFERENCES tenant_schema_placeholder.groups(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.user_groups
    ADD CONSTRAINT user_groups_user_id_fkey FOREIGN KEY (user_id) REFERENCES tenant_schema_placeholder.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.user_roles
    ADD CONSTRAINT user_roles_role_id_fkey FOREIGN KEY (role_id) REFERENCES tenant_schema_placeholder.roles(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.user_roles
    ADD CONSTRAINT user_roles_user_id_fkey FOREIGN KEY (user_id) REFERENCES tenant_schema_placeholder.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES tenant_schema_placeholder.webhook_deliveries(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES tenant_schema_placeholder.webhook_endpoints(id) ON DELETE CASCADE;

ALTER TABLE ONLY tenant_schema_placeholder.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES tenant_schema_placeholder.webhook_events(id) ON DELETE CASCADE;
