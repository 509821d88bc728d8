-- AlterTable
ALTER TABLE "User" ADD COLUMN "lastSeenAt" DATETIME;

-- Until now the directory showed a user's newest session as its last-seen time: users seen
-- before this migration keep that time (NULL, "never seen", for users without a session).
UPDATE "User" SET "lastSeenAt" = (SELECT MAX(s."lastSeenAt") FROM "Session" s WHERE s."userId" = "User"."id");
