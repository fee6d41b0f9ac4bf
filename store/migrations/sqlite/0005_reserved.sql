-- Number 5 is taken by another branch's migration (0005_forum_health); this
-- file only keeps the sequence gapless until that one is merged in its
-- place (delete this file then).
SELECT 1;
