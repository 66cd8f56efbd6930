DROP TRIGGER inventory_count_changes_flush ON inventory_count_changes;
DROP FUNCTION inventory_counts_flush_trigger();
DROP FUNCTION inventory_counts_apply();
DROP TABLE inventory_count_changes;

CREATE OR REPLACE FUNCTION inventory_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inventory_counts (organization_id, deploy_status, category, n)
        SELECT organization_id, deploy_status, category, COUNT(*) FROM new_rows GROUP BY 1, 2, 3
        ON CONFLICT (organization_id, deploy_status, category)
        DO UPDATE SET n = inventory_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION inventory_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE inventory_counts c SET n = c.n - o.k
        FROM (SELECT organization_id, deploy_status, category, COUNT(*) AS k
              FROM old_rows GROUP BY 1, 2, 3) o
        WHERE c.organization_id = o.organization_id AND c.deploy_status = o.deploy_status
          AND c.category = o.category;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION inventory_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE inventory_counts c SET n = c.n - o.k
        FROM (SELECT organization_id, deploy_status, category, COUNT(*) AS k
              FROM old_rows GROUP BY 1, 2, 3) o
        WHERE c.organization_id = o.organization_id AND c.deploy_status = o.deploy_status
          AND c.category = o.category;
    INSERT INTO inventory_counts (organization_id, deploy_status, category, n)
        SELECT organization_id, deploy_status, category, COUNT(*) FROM new_rows GROUP BY 1, 2, 3
        ON CONFLICT (organization_id, deploy_status, category)
        DO UPDATE SET n = inventory_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;
