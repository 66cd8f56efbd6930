DROP TABLE person_offboardings;
