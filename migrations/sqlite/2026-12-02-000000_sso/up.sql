-- Sign-in to the console with an organization's identity provider
-- (docs/sso.md), SQLite flavour; keep equivalent to the PostgreSQL one.
-- sso_configs: one per organization; client_secret is kept as given (equip
-- presents it to the provider's token endpoint); scopes space-separated.
CREATE TABLE sso_configs (
    organization_id TEXT NOT NULL PRIMARY KEY REFERENCES organizations (id),
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret TEXT NOT NULL,
    scopes TEXT NOT NULL,
    groups_claim TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
-- A provider group mapped to equip scopes (space-separated, as api_keys).
CREATE TABLE sso_roles (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    group_name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    PRIMARY KEY (organization_id, group_name)
);
-- A sign-in in progress: the SHA-256 of its state, its nonce and PKCE
-- verifier, for ten minutes; taken (deleted) once by the callback.
CREATE TABLE sso_login_attempts (
    state_hash TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    nonce TEXT NOT NULL,
    pkce_verifier TEXT NOT NULL,
    next_path TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX sso_login_attempts_organization_idx ON sso_login_attempts (organization_id, created_at);
-- A console session: the SHA-256 of its cookie's token, never the token.
CREATE TABLE sso_sessions (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    token_hash TEXT NOT NULL,
    subject TEXT NOT NULL,
    email TEXT NOT NULL,
    name TEXT,
    scopes TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    CONSTRAINT sso_sessions_token_hash_key UNIQUE (token_hash)
);
CREATE INDEX sso_sessions_organization_idx ON sso_sessions (organization_id, created_at);
-- A PERSON actor's email (actor_id holds the provider's subject).
ALTER TABLE events ADD COLUMN actor_email TEXT;
