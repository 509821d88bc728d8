-- The change notification names who a change can reach (read by src/platform/change-feed.ts,
-- "reach"). Hand-written, PostgreSQL only: Prisma models neither functions nor triggers.
--
-- A write transaction that can change the permissions of named users only sets the
-- transaction-local setting portcullis.reach to 'users=<id>,<id>...' before its first change
-- (src/platform/database.ts announceReach); its notification is then '<version>:users=...',
-- so other replicas drop those users' cached permissions only. Without the setting (or after it
-- was reset, when PostgreSQL answers an empty string) the payload is the bare version, as before:
-- a change that can reach anyone.
CREATE OR REPLACE FUNCTION "_portcullis_note_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bumped BIGINT;
  reach TEXT;
BEGIN
  UPDATE "_portcullis_change" SET "version" = "version" + 1, "tx" = txid_current()
    WHERE "id" = 1 AND "tx" IS DISTINCT FROM txid_current()
    RETURNING "version" INTO bumped;
  IF bumped IS NOT NULL THEN
    reach := NULLIF(current_setting('portcullis.reach', true), '');
    PERFORM pg_notify('portcullis_changes', bumped::text || COALESCE(':' || reach, ''));
  END IF;
  RETURN NULL;
END
$$;
