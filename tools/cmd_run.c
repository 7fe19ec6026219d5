/* rowreduce run: placeholder until its issue lands. */
#include "commands.h"

int rr_cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rr_tool_fail(2, "'run' is not built yet");
}
