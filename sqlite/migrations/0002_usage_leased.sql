-- Units of a day's quota leased to server processes that share a database (the PostgreSQL store,
-- see hensachi.QuotaStore). The embedded store serves one process and never leases, so it stays 0
-- here; the column keeps both stores' schemas and migration versions alike.
ALTER TABLE usage ADD COLUMN leased INTEGER NOT NULL DEFAULT 0 CHECK (leased >= 0);
