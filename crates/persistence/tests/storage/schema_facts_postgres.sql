WITH tables AS (SELECT c.oid, c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '__diesel_schema_migrations'),
cols AS (SELECT a.attrelid, a.attnum, a.attname::text AS name FROM pg_attribute a WHERE a.attnum > 0 AND NOT a.attisdropped)
SELECT 'table ' || name AS fact FROM tables
UNION ALL
SELECT 'column ' || table_name || '.' || column_name || ' ' ||
  CASE data_type WHEN 'integer' THEN 'integer' WHEN 'bigint' THEN 'integer' WHEN 'text' THEN 'text'
    WHEN 'date' THEN 'text' WHEN 'timestamp without time zone' THEN 'text' WHEN 'boolean' THEN 'boolean'
    WHEN 'double precision' THEN 'real' ELSE 'other ' || data_type END ||
  CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE ' null' END ||
  CASE WHEN column_default IS NULL THEN '' ELSE ' default ' || lower(trim(both '''' from split_part(column_default, '::', 1))) END
FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '__diesel_schema_migrations'
UNION ALL
SELECT CASE WHEN ix.indisprimary THEN 'primary key '
            WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = ix.indexrelid AND k.contype = 'u') THEN 'unique '
            WHEN ix.indisunique THEN 'unique index ' || i.relname || ' '
            ELSE 'index ' || i.relname || ' ' END ||
  t.name || '(' || (SELECT string_agg(coalesce(c.name, 'expr'), ',' ORDER BY k.ord)
                    FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, ord)
                    LEFT JOIN cols c ON c.attrelid = t.oid AND c.attnum = k.attnum) || ')' ||
  CASE WHEN ix.indpred IS NOT NULL THEN ' partial' ELSE '' END
FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN tables t ON t.oid = ix.indrelid
UNION ALL
SELECT 'foreign key ' || t.name || '(' ||
  (SELECT string_agg(c.name, ',' ORDER BY k.ord) FROM unnest(f.conkey) WITH ORDINALITY k(attnum, ord) JOIN cols c ON c.attrelid = f.conrelid AND c.attnum = k.attnum) ||
  ') -> ' || r.relname || '(' ||
  (SELECT string_agg(c.name, ',' ORDER BY k.ord) FROM unnest(f.confkey) WITH ORDINALITY k(attnum, ord) JOIN cols c ON c.attrelid = f.confrelid AND c.attnum = k.attnum) ||
  ') on delete ' || CASE f.confdeltype WHEN 'a' THEN 'no action' WHEN 'r' THEN 'restrict' WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' ELSE 'set default' END ||
  ' on update ' || CASE f.confupdtype WHEN 'a' THEN 'no action' WHEN 'r' THEN 'restrict' WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' ELSE 'set default' END
FROM pg_constraint f JOIN tables t ON t.oid = f.conrelid JOIN pg_class r ON r.oid = f.confrelid WHERE f.contype = 'f'
UNION ALL
SELECT 'trigger ' || tg.tgname || ' on ' || t.name FROM pg_trigger tg JOIN tables t ON t.oid = tg.tgrelid WHERE NOT tg.tgisinternal
ORDER BY 1;
