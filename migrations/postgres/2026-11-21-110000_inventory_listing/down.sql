DROP TABLE inventory_counts;
DROP TABLE inventory_listing;
DROP FUNCTION inventory_counts_add();
DROP FUNCTION inventory_counts_remove();
DROP FUNCTION inventory_counts_move();
