DROP TABLE events;
DROP TABLE event_sequences;
