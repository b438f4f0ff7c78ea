#include <stdio.h>
#include <stdlib.h>

typedef struct Node {
    int data;
    struct Node *next;
} Node;

Node *reverse(Node *head)
{
    Node *prev = NULL;
    Node *cur = head;
    Node *next;

    while (cur != NULL) {
        cur->next = prev;
        next = cur->next;
        prev = cur;
        cur = next;
    }
    return prev;
}

void print_list(Node *head)
{
    Node *p;

    for (p = head; p != NULL; p = p->next) {
        if (p != head)
            printf(" ");
        printf("%d", p->data);
    }
    printf("\n");
}

int main(void)
{
    int n, i, x;
    Node *head = NULL;
    Node *tail = NULL;

    scanf("%d", &n);
    for (i = 0; i < n; i++) {
        scanf("%d", &x);
        Node *node = (Node *)malloc(sizeof(Node));
        node->data = x;
        node->next = NULL;
        if (tail == NULL)
            head = node;
        else
            tail->next = node;
        tail = node;
    }
    print_list(head);
    head = reverse(head);
    print_list(head);
    while (head != NULL) {
        Node *tmp = head;
        head = head->next;
        free(tmp);
    }
    return 0;
}
