-- The listing's case-folded keys were written with SQLite's built-in lower(),
-- which folds ASCII only ('É' stayed 'É'): sorting by product and searching
-- disagreed with PostgreSQL and the in-memory reference for non-ASCII text.
-- The store now folds with equip_lower, an application-defined function
-- (Rust's str::to_lowercase) registered on every connection it opens; this
-- re-folds the rows already stored. Folding an ASCII-folded text again gives
-- the fully folded text, so the stored keys are folded in place. Only rows that
-- change are written (the FTS and count triggers keep the search index and the
-- counts in step). Runs only through equip (`equip migrate` / `equip serve`),
-- which registers equip_lower; the sqlite3 shell does not know it.
UPDATE inventory_listing SET
    serial_number = equip_lower(serial_number),
    product = equip_lower(product),
    category = equip_lower(category),
    vendor_sku = equip_lower(vendor_sku),
    assignee = equip_lower(assignee),
    search_text = equip_lower(search_text)
WHERE serial_number <> equip_lower(serial_number)
    OR product <> equip_lower(product)
    OR category <> equip_lower(category)
    OR vendor_sku <> equip_lower(vendor_sku)
    OR assignee <> equip_lower(assignee)
    OR search_text <> equip_lower(search_text);
