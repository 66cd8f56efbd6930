-- The number of active people of each organization, kept by triggers in the
-- writing transaction: the total of an unfiltered SCIM list without a count
-- over all of an organization's people (see the PostgreSQL migration).
CREATE TABLE people_active_counts (
    organization_id TEXT NOT NULL PRIMARY KEY,
    n BIGINT NOT NULL
);

INSERT INTO people_active_counts (organization_id, n)
    SELECT organization_id, COUNT(*) FROM people WHERE status = 'ACTIVE' GROUP BY organization_id;

CREATE TRIGGER people_active_count_insert AFTER INSERT ON people
    WHEN NEW.status = 'ACTIVE'
BEGIN
    INSERT INTO people_active_counts (organization_id, n) VALUES (NEW.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER people_active_count_delete AFTER DELETE ON people
    WHEN OLD.status = 'ACTIVE'
BEGIN
    UPDATE people_active_counts SET n = n - 1 WHERE organization_id = OLD.organization_id;
END;

CREATE TRIGGER people_active_count_update AFTER UPDATE OF status, organization_id ON people
    WHEN OLD.status IS NOT NEW.status OR OLD.organization_id IS NOT NEW.organization_id
BEGIN
    UPDATE people_active_counts SET n = n - 1
        WHERE OLD.status = 'ACTIVE' AND organization_id = OLD.organization_id;
    INSERT INTO people_active_counts (organization_id, n)
        SELECT NEW.organization_id, 1 WHERE NEW.status = 'ACTIVE'
        ON CONFLICT (organization_id) DO UPDATE SET n = n + 1;
END;
