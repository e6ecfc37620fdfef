# Build step (cmake -P): writes tbdrsim.1 with help2man from `tbdrsim --help` and `--version`, plus a
# SUBCOMMANDS section of every subcommand's own --help and a SEE ALSO section naming the documents.
# Inputs: -DTBDRSIM= -DHELP2MAN= -DOUTPUT=.
execute_process(COMMAND ${TBDRSIM} --help OUTPUT_VARIABLE main_help RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TBDRSIM} --help failed")
endif()
string(REGEX REPLACE ".*\nSubcommands:\n" "\n" listing "${main_help}")
string(REGEX MATCHALL "\n  [a-z][a-z-]*" names "${listing}")
set(include "[SUBCOMMANDS]\n")
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  execute_process(COMMAND ${TBDRSIM} ${name} --help OUTPUT_VARIABLE help)
  string(REPLACE "${TBDRSIM}" "tbdrsim" help "${help}")  # the usage line names the binary by its path
  # roff: a backslash is \e, and a line may not start with '.' or '\''.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND include ".SS ${name}\n.nf\n${help}.fi\n")
endforeach()
# Where the documents are: the source tree's user guides (README.md, tools/doc/) and specifications.
string(APPEND include "[SEE ALSO]\nIn the source tree: README.md (overview and worked examples); tools/doc/cli.md "
       "(every command, outputs, input limits, memory budget), tools/doc/captures.md, tools/doc/reports.md, "
       "tools/doc/advise.md, tools/doc/sweeps.md, tools/doc/architectures.md; traces/README.md (the trace "
       "format and report schema); models/README.md (every model and preset with its sources).\n")
set(include_file "${OUTPUT}.include")
file(WRITE "${include_file}" "${include}")
execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section 1
                        --name "a cycle-approximate simulator of tile-based deferred rendering GPUs"
                        --include "${include_file}" --output "${OUTPUT}" ${TBDRSIM}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "help2man failed on ${TBDRSIM}")
endif()
