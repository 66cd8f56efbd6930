-- Nothing to undo: the keys stay fully folded.
SELECT 1;
