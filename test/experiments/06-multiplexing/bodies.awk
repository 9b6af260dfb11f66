# bodies.awk: how many objects of a workload did not arrive whole, in one awk (a process per file
# costs a second under TCG). Input, in order: "/NAME SIZE" per downloaded file (stdin, from
# stat), the manifest's "/NAME SIZE PATH" lines, the workload's "/NAME" lines. Prints the count.
NF == 2 { got[$1] = $2; next }
NF == 3 { size[$1] = $2; next }
NF == 1 { if (!($1 in got) || got[$1] != size[$1]) bad++ }
END { print bad + 0 }
