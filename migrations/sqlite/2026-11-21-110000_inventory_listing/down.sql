DROP TABLE inventory_counts;
DROP TABLE inventory_search;
DROP TABLE inventory_listing;
