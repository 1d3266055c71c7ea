-- One value of each kind dump has a canonical form for, inserted out of order.
CREATE TABLE vals (v);
INSERT INTO vals VALUES (x'00ff'), (NULL), ('it''s'), (1.0), (1),
  ('a' || char(10) || 'b\c' || char(1)), ('');
