@echo off
rem `bijotel` CLI shipped inside the packaged app (resources\bin\bijotel.cmd): runs out\main\cli.js
rem with the app's own Electron as Node. setlocal keeps RES and ELECTRON_RUN_AS_NODE inside this
rem script: without it they stay set in the calling cmd.exe, and the next Electron app started from
rem that shell would run as plain Node.
setlocal
set "RES=%~dp0.."
set "ELECTRON_RUN_AS_NODE=1"
"%RES%\..\BIJOTEL Auditor.exe" "%RES%\app.asar\out\main\cli.js" %*
exit /b %ERRORLEVEL%
