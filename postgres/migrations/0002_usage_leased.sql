-- Units of a day's quota leased to server processes and not yet used or given back (see
-- hensachi.QuotaStore): count + leased never exceeds the limit a lease was granted under.
ALTER TABLE usage ADD COLUMN leased BIGINT NOT NULL DEFAULT 0 CHECK (leased >= 0);
