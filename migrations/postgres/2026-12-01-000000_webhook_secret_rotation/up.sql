-- A webhook's secret rotation (docs/webhooks.md, "Rotating the secret"),
-- PostgreSQL flavour; keep equivalent to the SQLite one. previous_secret:
-- the secret before the last rotation, still signing deliveries beside
-- `secret` until previous_secret_until (both NULL when there is none).
ALTER TABLE webhooks ADD COLUMN previous_secret TEXT;
ALTER TABLE webhooks ADD COLUMN previous_secret_until TIMESTAMP;
