-- AlterTable
ALTER TABLE "Role" ADD COLUMN "maxAssignmentSeconds" INTEGER;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_TeamRole" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "orgId" INTEGER NOT NULL,
    "teamId" INTEGER NOT NULL,
    "roleId" INTEGER NOT NULL,
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "notBefore" DATETIME,
    "expiresAt" DATETIME,
    "startNoted" BOOLEAN NOT NULL DEFAULT false,
    "endNoted" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "TeamRole_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TeamRole_roleId_fkey" FOREIGN KEY ("roleId") REFERENCES "Role" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_TeamRole" ("created", "id", "orgId", "roleId", "teamId") SELECT "created", "id", "orgId", "roleId", "teamId" FROM "TeamRole";
DROP TABLE "TeamRole";
ALTER TABLE "new_TeamRole" RENAME TO "TeamRole";
CREATE INDEX "TeamRole_roleId_idx" ON "TeamRole"("roleId");
CREATE INDEX "TeamRole_notBefore_idx" ON "TeamRole"("notBefore");
CREATE INDEX "TeamRole_expiresAt_idx" ON "TeamRole"("expiresAt");
CREATE UNIQUE INDEX "TeamRole_teamId_roleId_key" ON "TeamRole"("teamId", "roleId");
CREATE TABLE "new_UserRole" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "orgId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "roleId" INTEGER NOT NULL,
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "notBefore" DATETIME,
    "expiresAt" DATETIME,
    "startNoted" BOOLEAN NOT NULL DEFAULT false,
    "endNoted" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "UserRole_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "UserRole_roleId_fkey" FOREIGN KEY ("roleId") REFERENCES "Role" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_UserRole" ("created", "id", "orgId", "roleId", "userId") SELECT "created", "id", "orgId", "roleId", "userId" FROM "UserRole";
DROP TABLE "UserRole";
ALTER TABLE "new_UserRole" RENAME TO "UserRole";
CREATE INDEX "UserRole_userId_idx" ON "UserRole"("userId");
CREATE INDEX "UserRole_roleId_idx" ON "UserRole"("roleId");
CREATE INDEX "UserRole_notBefore_idx" ON "UserRole"("notBefore");
CREATE INDEX "UserRole_expiresAt_idx" ON "UserRole"("expiresAt");
CREATE UNIQUE INDEX "UserRole_orgId_userId_roleId_key" ON "UserRole"("orgId", "userId", "roleId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
