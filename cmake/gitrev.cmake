# Writes OUT, a header defining GC_GIT_REV: the source tree's revision (12
# hex digits, with "-dirty" when tracked files differ from it; "unknown"
# outside a git checkout). Run at every build; the header is rewritten only
# when the revision changes, so only the file that includes it recompiles.
# Usage: cmake -DSRC=<source dir> -DOUT=<header> -P gitrev.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD
                WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE changed OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT changed STREQUAL "")
    string(APPEND rev "-dirty")
  endif()
endif()
set(text "#define GC_GIT_REV \"${rev}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
