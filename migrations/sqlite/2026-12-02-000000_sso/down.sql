ALTER TABLE events DROP COLUMN actor_email;
DROP TABLE sso_sessions;
DROP TABLE sso_login_attempts;
DROP TABLE sso_roles;
DROP TABLE sso_configs;
