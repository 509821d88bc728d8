-- CreateTable
CREATE TABLE "UserAuth" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "userId" INTEGER NOT NULL,
    "authModule" TEXT NOT NULL,
    "authId" TEXT NOT NULL,
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "UserAuth_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "UserAuth_authModule_authId_key" ON "UserAuth"("authModule", "authId");

-- CreateIndex
CREATE UNIQUE INDEX "UserAuth_userId_authModule_key" ON "UserAuth"("userId", "authModule");
