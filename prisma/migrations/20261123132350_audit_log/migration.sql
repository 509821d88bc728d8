-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "orgId" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "actorKind" TEXT NOT NULL,
    "actorId" INTEGER NOT NULL,
    "actorLogin" TEXT NOT NULL DEFAULT '',
    "authMethod" TEXT NOT NULL,
    "clientAddress" TEXT NOT NULL DEFAULT '',
    "requestId" TEXT NOT NULL DEFAULT '',
    "resourceKind" TEXT NOT NULL,
    "resourceId" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT
);

-- CreateIndex
CREATE INDEX "AuditEvent_orgId_id_idx" ON "AuditEvent"("orgId", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_action_id_idx" ON "AuditEvent"("action", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_resourceKind_resourceId_idx" ON "AuditEvent"("resourceKind", "resourceId");

-- CreateIndex
CREATE INDEX "AuditEvent_actorKind_actorId_idx" ON "AuditEvent"("actorKind", "actorId");
