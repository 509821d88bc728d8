-- The change counter of PostgreSQL replicas (issue #19 item 2; read by src/platform/change-feed.ts).
-- Hand-written: Prisma models neither this table nor triggers. The table is listed as external
-- (src/platform/schema-engine.ts schemaFilters), so generated diffs leave it alone.
--
-- One row. Every transaction that changes what permissions depend on bumps "version" once, in
-- that transaction, and announces the new value with NOTIFY portcullis_changes '<version>'
-- (delivered at commit, in commit order). The UPDATE holds the row lock until commit, so versions
-- commit in increasing order: a replica that read version V has seen every change up to V, which
-- is what its catch-up after a lost listener connection relies on.
CREATE TABLE "_portcullis_change" (
    "id" INTEGER NOT NULL PRIMARY KEY CHECK ("id" = 1),
    "version" BIGINT NOT NULL,
    -- The transaction that made the last bump: later statements of it do not bump again.
    "tx" BIGINT
);
INSERT INTO "_portcullis_change" ("id", "version") VALUES (1, 0);

CREATE FUNCTION "_portcullis_note_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bumped BIGINT;
BEGIN
  UPDATE "_portcullis_change" SET "version" = "version" + 1, "tx" = txid_current()
    WHERE "id" = 1 AND "tx" IS DISTINCT FROM txid_current()
    RETURNING "version" INTO bumped;
  IF bumped IS NOT NULL THEN
    PERFORM pg_notify('portcullis_changes', bumped::text);
  END IF;
  RETURN NULL;
END
$$;

-- Tables whose every write can change someone's permissions or a request's facts.
CREATE TRIGGER "Org_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Org" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "OrgUser_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "OrgUser" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "Team_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Team" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "TeamMember_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "TeamMember" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "Role_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Role" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "Permission_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Permission" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "UserRole_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "UserRole" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "TeamRole_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "TeamRole" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "BasicRoleGrant_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "BasicRoleGrant" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();

-- Users and API keys: every write but the bookkeeping of use (User."lastSeenAt",
-- ApiKey."lastUsedAt", with the "updated" stamp Prisma moves along), which happens on the hot path
-- and changes nobody's permissions. Compared as whole rows, so a column added later counts.
CREATE TRIGGER "User_change" AFTER INSERT OR DELETE OR TRUNCATE ON "User" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "User_update" AFTER UPDATE ON "User" FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'lastSeenAt' - 'updated') IS DISTINCT FROM (to_jsonb(NEW) - 'lastSeenAt' - 'updated'))
  EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "ApiKey_change" AFTER INSERT OR DELETE OR TRUNCATE ON "ApiKey" FOR EACH STATEMENT EXECUTE FUNCTION "_portcullis_note_change"();
CREATE TRIGGER "ApiKey_update" AFTER UPDATE ON "ApiKey" FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'lastUsedAt' - 'updated') IS DISTINCT FROM (to_jsonb(NEW) - 'lastUsedAt' - 'updated'))
  EXECUTE FUNCTION "_portcullis_note_change"();
