/* DELETE */ SELECT 1 -- ; DROP TABLE items
/* a /* b */ */