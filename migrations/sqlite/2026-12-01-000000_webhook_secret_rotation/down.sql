ALTER TABLE webhooks DROP COLUMN previous_secret_until;
ALTER TABLE webhooks DROP COLUMN previous_secret;
