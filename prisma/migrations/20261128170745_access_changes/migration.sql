-- CreateTable
CREATE TABLE "AccessChange" (
    "revision" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "orgId" INTEGER NOT NULL,
    "actorKind" TEXT NOT NULL,
    "actorId" INTEGER NOT NULL,
    "actorLogin" TEXT NOT NULL DEFAULT '',
    "kinds" TEXT NOT NULL,
    "users" TEXT NOT NULL DEFAULT '[]',
    "roles" TEXT NOT NULL DEFAULT '[]',
    "teams" TEXT NOT NULL DEFAULT '[]',
    "apiKeys" TEXT NOT NULL DEFAULT '[]'
);

-- CreateTable
CREATE TABLE "AccessChangeHorizon" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "prunedThrough" INTEGER NOT NULL
);

-- CreateIndex
CREATE INDEX "AccessChange_orgId_revision_idx" ON "AccessChange"("orgId", "revision");

-- CreateIndex
CREATE INDEX "AccessChange_created_idx" ON "AccessChange"("created");
