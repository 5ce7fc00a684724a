# Writes OUT, the list runtime_stubs.cc turns into libcolo_preload.so's
# definitions of the CUDA runtime's functions that the interposer does not
# hook. Run at build time:
#   cmake -DNM=... -DCUDART=... -DCXX=... -DSRC=... -DHEADERS=a.h|b.h
#         -DOUT=... -P runtime_stub_symbols.cmake
#
# The runtime's functions are the `T` symbols of CUDART (nm -D, the
# version suffix dropped). Of those, the interposer's hook table
# (SRC/shim/hook_table.h, expanded by the compiler CXX) already defines
# some: they are left out, so a hook added to the table takes its stub's
# place. Left out too are nvcc's registration entry points (__cuda*), which
# take the interposer's own fat-binary handles and so cannot be forwarded.
# Each remaining function is written as:
#   COLO_RUNTIME_STUB(name)         returns cudaError_t (checked against the
#                                   runtime's headers HEADERS): refused in
#                                   sim mode, forwarded in gate mode;
#   COLO_RUNTIME_REFUSED(name)      the same, but takes a cudaStream_t or
#                                   cudaEvent_t, which in gate mode is the
#                                   interposer's object, not the real
#                                   runtime's: refused in both modes;
#   COLO_RUNTIME_FORWARDED(name)    answers without a device (error texts,
#                                   versions, channel descriptions): always
#                                   forwarded to the real runtime.
# A function whose declaration is not found, or that returns something
# other than cudaError_t and is not one of the forwarded ones, is left out
# and named in a message (it binds to the real runtime, as without colo).
cmake_minimum_required(VERSION 3.21)
foreach(var NM CUDART CXX SRC HEADERS OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "runtime_stub_symbols.cmake: -D${var}=... is required")
  endif()
endforeach()

# The functions the runtime answers without a device (runtime_stubs.cc has
# a fallback for each in case the runtime cannot be found).
set(forwarded cudaGetErrorName cudaGetErrorString cudaCreateChannelDesc
  cudaRuntimeGetVersion)

execute_process(COMMAND ${NM} -D --defined-only ${CUDART}
  OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D ${CUDART} failed")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(runtime_functions)
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]+ T ([A-Za-z_][A-Za-z0-9_]*)(@@?[A-Za-z0-9_.]+)?$")
    list(APPEND runtime_functions ${CMAKE_MATCH_1})
  endif()
endforeach()
list(LENGTH runtime_functions count)
if(count LESS 200)
  message(FATAL_ERROR "${CUDART}: only ${count} runtime functions found")
endif()

# The hook table's symbols, as the compiler expands COLO_HOOKED_SYMBOLS.
file(WRITE ${OUT}.hooks.cc
  "#include \"shim/hook_table.h\"\n"
  "#define COLO_LIST_HOOK_(sym) colo_hooked_symbol sym\n"
  "COLO_HOOKED_SYMBOLS(COLO_LIST_HOOK_)\n")
execute_process(COMMAND ${CXX} -E -P -I${SRC} ${OUT}.hooks.cc
  OUTPUT_VARIABLE expanded RESULT_VARIABLE rc ERROR_VARIABLE err)
file(REMOVE ${OUT}.hooks.cc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "expanding ${SRC}/shim/hook_table.h failed: ${err}")
endif()
string(REGEX MATCHALL "colo_hooked_symbol [A-Za-z0-9_]+" hooked "${expanded}")
list(TRANSFORM hooked REPLACE "^colo_hooked_symbol " "")
list(LENGTH hooked hook_count)
if(hook_count LESS 100)
  message(FATAL_ERROR "${SRC}/shim/hook_table.h: only ${hook_count} hooks found")
endif()

# Return types, from every `extern ... CUDARTAPI name(` of the headers.
string(REPLACE "|" ";" headers "${HEADERS}")
foreach(header IN LISTS headers)
  if(NOT EXISTS "${header}")
    continue()
  endif()
  file(READ "${header}" text)
  # Up to the `;`: default arguments (__dv(0)) have parentheses too.
  string(REGEX MATCHALL "extern[^;(]*CUDARTAPI[ \t\r\n]+[A-Za-z0-9_]+[ \t\r\n]*\\([^;]*;"
    decls "${text}")
  foreach(decl IN LISTS decls)
    string(REGEX MATCH "CUDARTAPI[ \t\r\n]+([A-Za-z0-9_]+)" _ "${decl}")
    set(name "${CMAKE_MATCH_1}")
    if(decl MATCHES "[ \t\r\n]cudaError_t[ \t\r\n]+CUDARTAPI")
      set(returns_${name} error)
      if(decl MATCHES "[(, \t\r\n](cudaStream_t|cudaEvent_t)[ \t\r\n*]")
        set(handles_${name} TRUE)
      endif()
    elseif(NOT DEFINED returns_${name})
      set(returns_${name} other)
    endif()
  endforeach()
endforeach()

set(body "// Generated from ${CUDART} by runtime_stub_symbols.cmake.\n")
set(stubs 0)
set(left_out)
foreach(name IN LISTS runtime_functions)
  if(name IN_LIST hooked OR name MATCHES "^__cuda")
    continue()
  endif()
  string(REGEX REPLACE "_(ptsz|ptds)$" "" declared "${name}")
  if(name IN_LIST forwarded)
    string(APPEND body "COLO_RUNTIME_FORWARDED(${name})\n")
  elseif(returns_${declared} STREQUAL "error" AND handles_${declared})
    string(APPEND body "COLO_RUNTIME_REFUSED(${name})\n")
  elseif(returns_${declared} STREQUAL "error")
    string(APPEND body "COLO_RUNTIME_STUB(${name})\n")
  else()
    list(APPEND left_out ${name})
    continue()
  endif()
  math(EXPR stubs "${stubs} + 1")
endforeach()
if(left_out)
  string(REPLACE ";" " " left_out "${left_out}")
  message(STATUS "colo: not defined by libcolo_preload.so (no cudaError_t "
                 "declaration found in the runtime's headers): ${left_out}")
endif()
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
