WITH tables AS (SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'inventory_search%' AND name <> '__diesel_schema_migrations')
SELECT 'table ' || name AS fact FROM tables
UNION ALL
SELECT 'column ' || t.name || '.' || c.name || ' ' ||
  CASE upper(c.type) WHEN 'INTEGER' THEN 'integer' WHEN 'BIGINT' THEN 'integer' WHEN 'TEXT' THEN 'text'
    WHEN 'TIMESTAMP' THEN 'text' WHEN 'BOOLEAN' THEN 'boolean' WHEN 'REAL' THEN 'real' ELSE 'other ' || c.type END ||
  CASE WHEN c."notnull" OR c.pk > 0 THEN ' not null' ELSE ' null' END ||
  CASE WHEN c.dflt_value IS NULL THEN '' ELSE ' default ' || lower(trim(c.dflt_value, '''')) END
FROM tables t, pragma_table_info(t.name) c
UNION ALL
SELECT CASE il.origin WHEN 'pk' THEN 'primary key ' WHEN 'u' THEN 'unique ' WHEN 'c' THEN
    CASE WHEN il."unique" THEN 'unique index ' ELSE 'index ' END || il.name || ' ' END ||
  t.name || '(' || (SELECT group_concat(coalesce(ii.name, 'expr'), ',') FROM (SELECT name FROM pragma_index_info(il.name) ORDER BY seqno) ii) || ')' ||
  CASE WHEN il.partial THEN ' partial' ELSE '' END
FROM tables t, pragma_index_list(t.name) il
UNION ALL
SELECT 'primary key ' || t.name || '(' || (SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_table_info(t.name) WHERE pk > 0 ORDER BY pk)) || ')'
FROM tables t WHERE EXISTS (SELECT 1 FROM pragma_table_info(t.name) WHERE pk > 0)
  AND NOT EXISTS (SELECT 1 FROM pragma_index_list(t.name) WHERE origin = 'pk')
UNION ALL
SELECT 'foreign key ' || t.name || '(' || group_concat(f."from", ',') || ') -> ' || f."table" || '(' || group_concat(f."to", ',') || ') on delete ' || lower(f.on_delete) || ' on update ' || lower(f.on_update)
FROM tables t, pragma_foreign_key_list(t.name) f GROUP BY t.name, f.id
UNION ALL
SELECT 'trigger ' || name || ' on ' || tbl_name FROM sqlite_master WHERE type = 'trigger'
ORDER BY 1;
