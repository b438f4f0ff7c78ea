#include <stdio.h>
#include <stdlib.h>

char *read_line(int *len)
{
    int cap = 8, n = 0, c;
    char *buf = malloc(cap);

    while ((c = getchar()) != EOF && c != '\n') {
        if (n + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        buf[n++] = (char)c;
    }
    if (c == EOF) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

char *upper_dup(const char *s, int len)
{
    char *u = malloc(len + 1);
    int i;

    for (i = 0; i < len; i++) {
        if (s[i] >= 'a' && s[i] <= 'z')
            u[i] = s[i] - 'a' + 'A';
        else
            u[i] = s[i];
    }
    u[len] = '\0';
    return u;
}

int main(void)
{
    char *line, *up;
    int len, count = 0;

    while ((line = read_line(&len)) != NULL) {
        up = upper_dup(line, len);
        printf("%d: %s\n", len, up);
        free(up);
        free(line);
        count++;
    }
    printf("lines: %d\n", count);
    return 0;
}
