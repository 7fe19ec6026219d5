/* rowreduce emit: placeholder until its issue lands. */
#include "commands.h"

int rr_cmd_emit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rr_tool_fail(2, "'emit' is not built yet");
}
