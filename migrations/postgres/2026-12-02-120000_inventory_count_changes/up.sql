-- Concurrent item writes of one organization deadlocked on inventory_counts
-- (issue 47, item 9). A listing refresh deletes an item's listing row and
-- inserts it again, and the statement triggers moved the counts as they went:
-- the row of the old (status, category) was locked by the DELETE, the new
-- one by the INSERT. Two writes moving items in opposite directions (AVAILABLE
-- to UNAVAILABLE and back, a shipment beside a receipt) locked the same two
-- rows in opposite orders, and PostgreSQL answered one of them 40P01.
--
-- Now the triggers only record what the statement changed, in
-- inventory_count_changes (plain inserts: no row of another transaction is
-- locked or waited for), and inventory_counts_apply() applies the writing
-- transaction's changes to inventory_counts in one statement, in key order,
-- after the refresh has moved the organization's listing version
-- (inventory_listing_versions), whose row the writer then holds until it
-- ends. So a count row is locked only by the one transaction holding its
-- organization's version row: writers of one organization queue on that row,
-- as they already did, and can no longer wait for each other on the counts.
-- The expensive part of a refresh (the listing rows and their JSON) still runs
-- side by side.
--
-- A write of inventory_listing that does not go through the store's refresh
-- (none does today; a cascade from inventory_items would) is flushed at
-- commit by a deferred trigger, which takes the organization's version row
-- first, so the counts stay exact whatever writes the listing.
--
-- SQLite is unchanged: its write transactions take the database's one write
-- lock at BEGIN IMMEDIATE, so its row triggers cannot deadlock.

CREATE TABLE inventory_count_changes (
    -- The writing transaction (pg_current_xact_id(), as listing_stamp).
    txid BIGINT NOT NULL,
    organization_id TEXT NOT NULL,
    deploy_status TEXT NOT NULL,
    category TEXT NOT NULL,
    n BIGINT NOT NULL
);
CREATE INDEX inventory_count_changes_txid_idx ON inventory_count_changes (txid);

CREATE OR REPLACE FUNCTION inventory_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inventory_count_changes (txid, organization_id, deploy_status, category, n)
        SELECT CAST(CAST(pg_current_xact_id() AS TEXT) AS BIGINT),
               organization_id, deploy_status, category, COUNT(*)
        FROM new_rows GROUP BY organization_id, deploy_status, category;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION inventory_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inventory_count_changes (txid, organization_id, deploy_status, category, n)
        SELECT CAST(CAST(pg_current_xact_id() AS TEXT) AS BIGINT),
               organization_id, deploy_status, category, -COUNT(*)
        FROM old_rows GROUP BY organization_id, deploy_status, category;
    RETURN NULL;
END $$;

-- An UPDATE that leaves every row's status and category (the JSON written by
-- a refresh) records nothing.
CREATE OR REPLACE FUNCTION inventory_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inventory_count_changes (txid, organization_id, deploy_status, category, n)
        SELECT CAST(CAST(pg_current_xact_id() AS TEXT) AS BIGINT),
               organization_id, deploy_status, category, SUM(d)
        FROM (SELECT organization_id, deploy_status, category, -1 AS d FROM old_rows
              UNION ALL
              SELECT organization_id, deploy_status, category, 1 AS d FROM new_rows) m
        GROUP BY organization_id, deploy_status, category
        HAVING SUM(d) <> 0;
    RETURN NULL;
END $$;

-- Applies the current transaction's recorded changes to inventory_counts, in
-- key order, in one statement. The caller holds the version rows of the
-- organizations concerned: the store calls it right after a refresh has moved
-- the organization's version.
CREATE FUNCTION inventory_counts_apply() RETURNS void LANGUAGE sql AS $$
    WITH taken AS (
        DELETE FROM inventory_count_changes
        WHERE txid = CAST(CAST(pg_current_xact_id() AS TEXT) AS BIGINT)
        RETURNING organization_id, deploy_status, category, n
    )
    INSERT INTO inventory_counts (organization_id, deploy_status, category, n)
        SELECT organization_id, deploy_status, category, SUM(n) FROM taken
        GROUP BY organization_id, deploy_status, category
        HAVING SUM(n) <> 0
        ORDER BY organization_id, deploy_status, category
        ON CONFLICT (organization_id, deploy_status, category)
        DO UPDATE SET n = inventory_counts.n + EXCLUDED.n;
$$;

-- At commit, for changes no refresh applied: the organizations' versions
-- moved first (their rows locked in key order; the listing did change), then
-- the counts.
CREATE FUNCTION inventory_counts_flush_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    me BIGINT := CAST(CAST(pg_current_xact_id() AS TEXT) AS BIGINT);
BEGIN
    IF EXISTS (SELECT 1 FROM inventory_count_changes WHERE txid = me) THEN
        INSERT INTO inventory_listing_versions (organization_id, version)
            SELECT DISTINCT organization_id, 1 FROM inventory_count_changes WHERE txid = me
            ORDER BY organization_id
            ON CONFLICT (organization_id)
            DO UPDATE SET version = inventory_listing_versions.version + 1;
        PERFORM inventory_counts_apply();
    END IF;
    RETURN NULL;
END $$;
-- The safety net: changes still recorded when the transaction commits.
CREATE CONSTRAINT TRIGGER inventory_count_changes_flush AFTER INSERT ON inventory_count_changes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION inventory_counts_flush_trigger();
