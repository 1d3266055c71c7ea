-- sqlite/conformance.sql — the SQLite half of the conformance seed: the one
-- fixture whose literal the engines spell differently, a 1x1 PNG as a blob
-- (X'…'). Runs before the shared seed/conformance.sql.
INSERT INTO dbmcp_resources (uri, name, title, mime_type, content_text, content_blob) VALUES
('test://static-binary', 'static-binary', 'Static binary resource', 'image/png', NULL, X'89504E470D0A1A0A0000000D49484452000000010000000108060000001F15C4890000000D4944415478DA63FCCFC0F01F00050502005FC8F1D20000000049454E44AE426082');
