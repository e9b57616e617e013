@echo off
rem `bijotel` CLI shipped inside the packaged app (resources\bin\bijotel.cmd).
set "RES=%~dp0.."
set ELECTRON_RUN_AS_NODE=1
"%RES%\..\BIJOTEL Auditor.exe" "%RES%\app.asar\out\main\cli.js" %*
